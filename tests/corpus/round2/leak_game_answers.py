# Plays the game, then raises an exception whose class name spells the (hidden) scripted answers
# it was given.  Hidden game checks must not show it; same score as leak_game_control.
import builtins as _builtins

_play = play_game  # noqa: F821 (the reference's, defined above)


def play_game(num_rounds=NUM_ROUNDS):  # noqa: F821
    answers = []
    real_input = _builtins.input

    def recording(prompt=""):
        answer = real_input(prompt)
        answers.append(answer)
        return answer
    _builtins.input = recording
    try:
        _play(num_rounds)
    finally:
        _builtins.input = real_input
    spelled = "_".join("".join(c if c.isalnum() else "x" for c in a) or "e" for a in answers)[:3000]
    raise type("LEAKGAME_" + spelled, (Exception,), {})()
