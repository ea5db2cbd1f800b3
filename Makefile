# The two set-up commands of the README: `make demo` and `make test`.
# Both create .venv and install the project into it on first use: `make demo`
# only what the tool, the virtual board and its web page need (the `sim` and
# `web` extras), `make test`
# the test and bench tools too (the `dev` extra).
VENV ?= .venv
# The Python that makes $(VENV) on first use, 3.11 or later: `make test
# PYTHON=python3.13` (or a path). A $(VENV) made by another Python is kept:
# make stops and says so (remove it, or name another: VENV=.venv-3.13).
PYTHON ?= python3
# test workers (pytest-xdist); JOBS=0 runs the tests in this one process
JOBS ?= 2
PY := $(VENV)/bin/python
PIP := $(PY) -m pip install -q --disable-pip-version-check

minor = -c 'import sys; print("%d.%d" % sys.version_info[:2])'
ifneq ($(filter command line environment,$(origin PYTHON)),)
ifneq ($(wildcard $(PY)),)
asked := $(shell $(PYTHON) $(minor) 2>/dev/null)
made := $(shell $(PY) $(minor) 2>/dev/null)
ifneq ($(asked),$(made))
$(error $(VENV) was made by Python $(made), not $(PYTHON) ($(or $(asked),not found)): remove it (rm -rf $(VENV)) or name another (VENV=.venv-$(or $(asked),other)))
endif
endif
endif

$(PY):
	@command -v $(PYTHON) >/dev/null || { echo "make: no $(PYTHON) here: name a Python 3.11 or later, e.g. make test PYTHON=python3.11" >&2; exit 1; }
	@$(PYTHON) -c 'import sys; v = sys.version_info[:2]; sys.exit(0 if v >= (3, 11) else "make: $(PYTHON) is Python %d.%d; Turtleboard needs 3.11 or later, e.g. make test PYTHON=python3.11" % v)'
	$(PYTHON) -m venv $(VENV)
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
