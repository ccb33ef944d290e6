# Every target creates the environment on first use (pip: it takes torch's CPU wheel from disk).
VENV ?= .venv
PYTHON := $(VENV)/bin/python
INSTALLED := $(VENV)/.installed
export NO_MKDOCS_2_WARNING := 1

.PHONY: serve build test goldens clean-cache source-index bench

$(INSTALLED): requirements.lock pyproject.toml
	python3 -m venv $(VENV)
	$(PYTHON) -m pip install --quiet --disable-pip-version-check -r requirements.lock
	$(PYTHON) -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	touch $(INSTALLED)

serve: $(INSTALLED)
	$(PYTHON) -m mkdocs serve --dev-addr 127.0.0.1:8000

build: $(INSTALLED)
	$(PYTHON) -m mkdocs build --strict

# The strict build first: it fills the execution cache that the per-block test items reuse.
test: $(INSTALLED)
	$(PYTHON) -m mkdocs build --strict
	$(PYTHON) -m pytest --codeblocks -n 2 tests README.md

goldens: $(INSTALLED)
	$(PYTHON) -m handbook.goldens

clean-cache:
	rm -rf .cache

# Rewrites source-index/torch-<release>.txt from the installed torch's shared libraries.
source-index: $(INSTALLED)
	$(PYTHON) -m handbook.sources

# Build speed as ratios in one run (see bench/build_speed.py); takes several minutes.
bench: $(INSTALLED)
	$(PYTHON) bench/build_speed.py
