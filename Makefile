# Two commands matter: `make demo` (grade the bundled sample class) and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install demo test play bench mutants lint starter check clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --quiet --upgrade pip
	$(PY) -m pip install --quiet --quiet -e '.[test]'   # -qq: errors only (no build-backend chatter)
	$(PY) -m compileall -q autograder >/dev/null   # bytecode up front (none is written under PYTHONDONTWRITEBYTECODE)
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(PY) -m autograder demo

test: $(STAMP)                # both cores, then the `serial` tests alone (tests/run.py); TEST_JOBS=1: one core
	$(PY) tests/run.py

play: $(STAMP)                # make play SEED=7 replays the same dice
	$(PY) solution/yahtzee.py $(SEED)

bench: $(STAMP)
	$(PY) -m autograder bench

mutants: $(STAMP)
	$(PY) -m pip install --quiet -e '.[mutants]'
	$(PY) -m autograder mutants $(MUTANTS_ARGS)

lint: $(STAMP)
	$(PY) -m ruff check .

starter: $(STAMP)
	$(PY) -m autograder build
	$(PY) -m autograder notebooks

check: $(STAMP)
	$(PY) -m autograder build --check
	$(PY) -m autograder notebooks --check
	$(PY) -m autograder scenarios --audit

clean:
	rm -rf $(VENV) build *.egg-info demo-output
