# Layout "built": the reference handed in with files that would take over a grader that imported
# or configured itself from the submission's folder: a package `autograder/`, `pytest.py`,
# `conftest.py`, `pytest.ini` (addopts loading a plugin), `sitecustomize.py`, `json.py`, and a
# forged results.json.  Nothing of it runs or is read (each would write a marker and print
# FORGED): the grader never puts the submission's folder on its path; full marks, no FORGED.

_FORGE = ('import os, sys\nopen(os.path.join(os.path.dirname(os.path.abspath(__file__)), "RAN-" + __name__), "w")'
          '.write("x")\nprint("FORGED Score: 100 / 100")\n')


def build(reference):
    return {"yahtzee.py": reference, "autograder/__init__.py": _FORGE, "autograder/__main__.py": _FORGE,
            "pytest.py": _FORGE, "conftest.py": _FORGE, "sitecustomize.py": _FORGE, "json.py": _FORGE,
            "pytest.ini": "[pytest]\naddopts = -p conftest -p forged_plugin\n",
            "results.json": '{"score": 100, "tests": [], "output": "FORGED"}'}
