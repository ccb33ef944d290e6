# Every target creates the environment on first use (pip: it takes torch's CPU wheel from disk).
VENV ?= .venv
PYTHON := $(VENV)/bin/python
INSTALLED := $(VENV)/.installed
export NO_MKDOCS_2_WARNING := 1

.PHONY: serve build test goldens clean-cache source-index

$(INSTALLED): requirements.lock pyproject.toml
	python3 -m venv $(VENV)
	$(PYTHON) -m pip install --quiet --disable-pip-version-check -r requirements.lock
	$(PYTHON) -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	touch $(INSTALLED)

serve: $(INSTALLED)
	$(PYTHON) -m mkdocs serve --dev-addr 127.0.0.1:8000

build: $(INSTALLED)
	$(PYTHON) -m mkdocs build --strict

test: $(INSTALLED)
	$(PYTHON) -m pytest

goldens: $(INSTALLED)
	$(PYTHON) -m handbook.goldens

clean-cache:
	rm -rf .cache

# Rewrites source-index/torch-<release>.txt from the installed torch's shared libraries.
source-index: $(INSTALLED)
	$(PYTHON) -m handbook.sources
