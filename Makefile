# Set-up and everyday commands. Everything installs into .venv beside this file.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-full suite bench lint clean xcb-deps bundle oracle

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# Qt's xcb platform plugin cannot open a real window without these Debian packages.
XCB_DEBS := libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxkbcommon-x11-0 libegl1 libgl1 libfontconfig1

xcb-deps:
	@missing=$$(for p in $(XCB_DEBS); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ] && command -v apt-get >/dev/null; then \
		if [ "$$(id -u)" = 0 ]; then apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
		else echo "Qt needs: sudo apt-get install -y $$missing"; sudo apt-get install -y -qq $$missing >/dev/null; fi; \
	fi

run: $(STAMP) xcb-deps  ## install and open the window with the preloaded build
	$(BIN)/configurator $(BUILD)

# ruff format --check covers the packages written formatted (the rest predates the formatter); mypy's
# per-module strictness is in pyproject.toml.
FORMATTED := configurator/catalog configurator/engine/editing configurator/engine/planner configurator/present \
	configurator/engine/model/resolver.py configurator/engine/model/codes.py configurator/ui/base/view_state.py \
	configurator/ui/base/settings.py $(wildcard configurator/ui/*/__init__.py) tests/conftest.py \
	tests/architecture/test_layering.py tests/catalog/test_fileio_umask.py

lint: $(STAMP)
	$(BIN)/ruff check configurator tests benchmarks
	$(BIN)/ruff format --check $(FORMATTED)
	$(BIN)/lint-imports
	$(BIN)/python -m mypy

# make test: the lint and the suite side by side (-j2; -Oline keeps their lines whole). The suite runs one
# worker per core, a file per worker at a time, the files with the bundle and wheel builds first
# (tests/conftest.py orders them; --no-loadscope-reorder keeps that order); the bundle is built once per
# change of its inputs and kept in build/test-bundle (tests/packaging/test_bundle.py). The property tests run the "quick"
# hypothesis profile, a fifth of their examples; make test-full runs all of them (tests/conftest.py).
test: $(STAMP)  ## install, lint and run the whole test suite (offscreen, no GPU, no network)
	@$(MAKE) --no-print-directory -j2 -Oline lint suite

# PYTHONDONTWRITEBYTECODE is emptied so that the workers keep the compiled package and pytest's rewritten test
# modules in __pycache__: collection takes 2.5 s instead of 8 s of CPU per worker from the second run on.
# --max-worker-restart=0: a worker that crashes fails the run at once (seen: pytest-xdist's loadfile scheduler
# waited for ever after replacing a crashed worker).
suite: $(STAMP)
	PYTHONDONTWRITEBYTECODE= QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q -n auto --dist loadfile \
		--no-loadscope-reorder --max-worker-restart=0 --durations=10

test-full: $(STAMP)  ## make test with every property-test example (5,040 in test_reliability_properties alone)
	HYPOTHESIS_PROFILE=full $(MAKE) --no-print-directory test

bench: $(STAMP)  ## timing benchmarks (not part of the test suite)
	$(BIN)/python -m pytest -q benchmarks --benchmark-only -p no:randomly

clean:
	rm -rf $(VENV) build dist .pytest_cache .ruff_cache .benchmarks

bundle: $(STAMP)  ## one-folder desktop app in dist/configurator (PyInstaller; see packaging/README.md)
	$(BIN)/pyinstaller --noconfirm --distpath dist --workpath build/pyinstaller packaging/configurator.spec

# The traced reference table (specs/trace/table.jsonl): opt-in, in a venv of its own with the pinned `trace` extra
# (torch, transformers, peft, accelerate, bitsandbytes, torchao: ~3 min and 5.6 GB to install). Two shards run side
# by side under nice, each appending its rows as they finish (an interrupted run resumes), then the parts are merged
# under a header naming the versions, the command and the date. `make test` never needs torch.
TRACE_VENV ?= .venv-trace
ORACLE_SHARDS ?= 2
oracle:  ## regenerate the traced reference table (installs the heavy trace extra in $(TRACE_VENV))
	test -x $(TRACE_VENV)/bin/python || $(PY) -m venv $(TRACE_VENV)
	$(TRACE_VENV)/bin/python -m pip install --quiet pydantic pyyaml $$(sed -n '/^trace = \[/,/^\]/p' pyproject.toml | grep -o '"[^"]*"' | tr -d '"')
	rm -f specs/trace/table.part*.jsonl
	for i in $$(seq 0 $$(($(ORACLE_SHARDS) - 1))); do \
		PYTHONPATH=$(CURDIR) nice -n 15 $(TRACE_VENV)/bin/python -m configurator.trace.oracle.generate --warm --shard $$i/$(ORACLE_SHARDS) & \
	done; wait
	for i in $$(seq 0 $$(($(ORACLE_SHARDS) - 1))); do \
		PYTHONPATH=$(CURDIR) nice -n 15 $(TRACE_VENV)/bin/python -m configurator.trace.oracle.generate --warm --vlm \
			--shard $$i/$(ORACLE_SHARDS) --out specs/trace/table.part-vlm$$i.jsonl & \
	done; wait
	PYTHONPATH=$(CURDIR) $(TRACE_VENV)/bin/python -m configurator.trace.oracle.generate --merge
	rm -f specs/trace/table.part*.jsonl
