# Functions that end the interpreter (the reference otherwise): sys.exit in smallStraight,
# os._exit in largeStraight, SystemExit from showscores.
import os
import sys


def smallStraight(dielist):
    sys.exit(0)


def largeStraight(dielist):
    os._exit(0)


def showscores(dielist):
    raise SystemExit("bye")
