# KNOWN (docs/threat-model.md, "Endless loops proved", residual): score_chance first grows a list
# subclass whose `<` IS list.append (a C function set as the class's __lt__: the comparison runs
# it without any Python frame) until it holds a million items.  Every name of the loop keeps its
# object and every opcode looks still (len, a comparison), so the endless-loop proof takes this
# finite loop for endless at its first look: every Chance check a timeout, 97.9714 (what a
# score_chance that raises scores).  Only a program that builds such a class on purpose meets
# this, and it loses only its own requests; honest code's C state (a defaultdict, an iterator
# consumed by `in`: finite_loop_*) is no longer taken for still.
_score_chance = score_chance   # noqa: F821 -- the solution's, above


class _Grows(list):
    __lt__ = list.append


def score_chance(dice):
    grows = _Grows()
    while len(grows) < 1_000_000:
        grows < 0
    return _score_chance(dice)
