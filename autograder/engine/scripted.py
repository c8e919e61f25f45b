"""Scripted input and dice: the one runtime every place that runs student code with a script uses.

Stdlib only and no imports at all, because its source text is used three ways: it is a part of
the sandbox harness (engine/harness/: Run answers input() and random.randint from it), and the
notebooks' checking tools embed it (run_scripted in a notebook's given cell, in the bundle's
check.py and under `grade --public`), where the kit is not installed.

A Scripted hands out the scripted answers and dice in order and remembers where it ran out; what
running out means (a status in the sandbox, a failed check in a notebook) is the caller's.
"""


class Scripted:
    """ANSWERS (input lines; None: no input scripted at all) and DICE (None: the dice are not
    scripted, the real random module rolls), consumed in order."""

    def __init__(self, answers=None, dice=None):
        self.has_answers = answers is not None
        self.answers = [a if type(a) is str else str(a) for a in answers or ()]
        self.pos = 0                 # answers given
        self.asked = 0               # times input was asked for (given or not)
        self.exhausted_at = None     # the ask (1-based) that found no answer left, the first time
        self.dice = None if dice is None else list(dice)
        self.dice_pos = 0            # dice rolled from the script
        self.dice_failed_at = None   # the roll (1-based) that found no die left, the first time

    def answer(self):
        """The next answer, or None when none is left (the first such ask is remembered)."""
        self.asked += 1
        if self.pos < len(self.answers):
            self.pos += 1
            return self.answers[self.pos - 1]
        if self.exhausted_at is None:
            self.exhausted_at = self.asked
        return None

    def first_exhaustion(self):
        """True right after the ask that first found no answer left."""
        return self.exhausted_at is not None and self.exhausted_at == self.asked

    def has_answer(self):
        return self.pos < len(self.answers)

    def answers_left(self):
        return self.answers[self.pos:]

    def die(self):
        """The next scripted die, or None when none is left (remembered).  Only for scripted dice."""
        if self.dice_pos >= len(self.dice):
            if self.dice_failed_at is None:
                self.dice_failed_at = self.dice_pos + 1
            return None
        self.dice_pos += 1
        return self.dice[self.dice_pos - 1]

    def dice_left(self):
        return [] if self.dice is None else self.dice[self.dice_pos:]

    @staticmethod
    def echo(prompt, answer):
        """An answered prompt as a terminal shows it: the prompt, the typed answer, a newline."""
        return f"{prompt}{answer}\n"
