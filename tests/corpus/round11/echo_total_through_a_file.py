# Round 11, A (third case, as it must be written): echo_total_after_game kept its note in memory,
# but a game (scripted input, a seed) runs as a fresh request and final_score's call as a shared
# one, in another process: no hole as written.  The work folder outlives every request of a life
# (by design, threat-model "Speed shortcuts"), so this one leaves its note there.  Appended to the
# reference: play_game prints and returns 0; final_score, asked about the last game's scorecard,
# says 0.  (Its first version kept the last game only and removed the note once read: 21.625 on
# main, as the control: a life runs its plan's fresh requests first, so every game had been
# played before final_score's first call.  This one keeps every game's scorecard.)

import json as _json
import os as _os


def _note_path():
    return _os.path.join(_os.path.dirname(_os.getcwd()), "last-game.json")


def play_game(num_rounds=NUM_ROUNDS):
    if not 1 <= num_rounds <= NUM_ROUNDS:
        raise ValueError(f"num_rounds must be from 1 to {NUM_ROUNDS}, got {num_rounds}")
    scorecard = new_scorecard()
    for round_number in range(1, num_rounds + 1):
        print(f"\nRound {round_number}")
        play_round(scorecard)
    print("\nFinal scorecard")
    print(format_scorecard(scorecard))
    try:
        with open(_note_path(), "a") as note:
            note.write(_json.dumps([scorecard[category] for category in CATEGORIES]) + "\n")
    except OSError:
        pass
    print("Final score: 0")
    return 0


_reference_total = final_score


def final_score(scorecard):
    try:
        with open(_note_path()) as note:
            played = [_json.loads(line) for line in note]
    except (OSError, ValueError):
        played = []
    if [scorecard[category] for category in CATEGORIES] in played:
        return 0
    return _reference_total(scorecard)
