# die() is not a generator but an object that claims to be one (has __next__ and send) and
# rolls ahead, and new_player returns a plain tuple subclass with _fields (the reference otherwise).
import random


class _FakeDie:
    def __init__(self):
        self.ahead = [random.randint(1, 6) for _ in range(3)]

    def __iter__(self):
        return self

    def __next__(self):
        self.ahead.append(random.randint(1, 6))
        return self.ahead.pop(0)

    def send(self, value):
        return next(self)


def die():
    return _FakeDie()
