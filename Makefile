# The two set-up commands of the README: `make demo` and `make test`.
# Both create .venv and install the project into it on first use.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

.PHONY: install demo test lint bench
install: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/turtleboard demo $(ARGS)

test: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m pytest -q $(ARGS)

bench: $(STAMP)
	$(PY) bench/engine.py
