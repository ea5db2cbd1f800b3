# The two set-up commands of the README: `make demo` and `make test`.
# Both create .venv and install the project into it on first use: `make demo`
# only what the tool, the virtual board and its web page need (the `sim` and
# `web` extras), `make test`
# the test and bench tools too (the `dev` extra).
VENV ?= .venv
# test workers (pytest-xdist); JOBS=0 runs the tests in this one process
JOBS ?= 2
PY := $(VENV)/bin/python
PIP := $(PY) -m pip install -q --disable-pip-version-check

$(PY):
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

$(VENV)/.installed-sim: pyproject.toml | $(PY)
	$(PIP) -e '.[sim,web]'
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(PY)
	$(PIP) -e '.[dev]'
	touch $@ $(VENV)/.installed-sim

.PHONY: install demo test lint bench
install: $(VENV)/.installed-dev

demo: $(VENV)/.installed-sim
	$(VENV)/bin/turtleboard demo $(ARGS)

test: $(VENV)/.installed-dev
	$(PY) -m ruff check .
	$(PY) -m pytest -q -n $(JOBS) --dist loadfile $(ARGS)

bench: $(VENV)/.installed-dev
	$(PY) bench/engine.py
