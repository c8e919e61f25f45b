"""A request's draws that the dice do not answer (Run's part): the same request draws the same
numbers in every run and every process (random's other functions, an own random.Random(),
SystemRandom, secrets, os.urandom, uuid4: without this, what the at-fork reseed or os.urandom
gave, a lottery between two gradings)."""

import random

from .base import _dumps

_ORIG_RANDOM = {}    # name -> original bound method of random._inst
_BaseRandom = random.SystemRandom.__mro__[1]   # random.Random itself, even where patches.py replaced it
_GETRANDBITS = random.SystemRandom.__mro__[2].getrandbits   # the C generator's own (_random.Random's)
# What a request's own draws are seeded from (its content: never its nonce, seq or time limits).
_DRAW_KEYS = ("kind", "func", "args", "kwargs", "stdin", "dice", "instance", "typed")


def randint(a, b):
    """random.randint(A, B) on random's own generator, the same numbers, without the Python frames
    of randrange and _randbelow nor the generator's class's reporting (patches._ModuleRandom: the
    grader's own dice are no draw of the student's); any other argument: randint itself."""
    if type(a) is int and type(b) is int and a <= b:
        n = b - a + 1
        k = n.bit_length()
        inst = random._inst
        r = _GETRANDBITS(inst, k)
        while r >= n:
            r = _GETRANDBITS(inst, k)
        return a + r
    return _ORIG_RANDOM["randint"](a, b)


class Draws:
    """Run's draws (its req, phase, drawn, reseeds, owns, noted, streams and event are Run's)."""

    def draw_key(self, what):
        """The seed of WHAT drawn in this phase: the request's seed when it carries one (a seeded game
        is the same game however it is run: a script, a call), else its content; so the same request
        draws the same numbers in every run and every process.  The import's: the same whichever
        request imports."""
        if self.phase == "import":
            return f"import {what}"
        req = self.req
        seed = req.get("seed")
        basis = ["seed", seed] if seed is not None else [req.get(key) for key in _DRAW_KEYS]
        return f"{what} {_dumps(basis)}"

    def fix_draws(self):
        """random's generator seeded for this phase, at its first draw (lazily: a program that does
        not draw pays nothing; called at every draw the dice do not answer); a seed the request or
        the student gave this phase is kept."""
        if self.drawn != self.phase:
            self._seed_draws()

    def reseed(self):
        """The program's own random.seed() or its seed where the grader gives the dice
        (grader_draws): the request's again, the next of its seeds."""
        self.reseeds += 1
        self._seed_draws()

    def _seed_draws(self):
        self.drawn = self.phase
        _ORIG_RANDOM["seed"](self.draw_key(f"random {self.reseeds}" if self.reseeds else "random"))

    def grader_draws(self):
        """Whether the grader gives this call's randomness (its dice or its seed): a seed the
        program sets there breaks the RNG contract (reported) and is replaced by the request's."""
        req = self.req
        return self.phase == "call" and (req.get("seed") is not None or req.get("dice") is not None)

    def note(self, name):
        """Report, once a request, a draw random's module functions do not report (they report each
        call): NAME is "Random", "SystemRandom" or "os.urandom"."""
        if self.phase != "call":
            return
        noted = self.noted
        if noted is None:
            noted = self.noted = set()
        if name not in noted:
            noted.add(name)
            self.event(["random", name, []])

    def own_seed(self):
        """The seed of a random.Random() made without one: the request's and its count."""
        self.owns += 1
        return self.draw_key(f"Random {self.owns}")

    def stream(self):
        """The generator whose bytes os.urandom and SystemRandom give this phase (a private one:
        random's own sequence is not moved by them)."""
        streams = self.streams
        if streams is None:
            streams = self.streams = {}
        gen = streams.get(self.phase)
        if gen is None:
            gen = streams[self.phase] = _BaseRandom(self.draw_key("urandom"))
        return gen
