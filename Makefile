# Set-up and everyday commands. Everything installs into .venv beside this file.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test bench lint clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

run: $(STAMP)  ## install and start the app with the preloaded build
	$(BIN)/configurator $(BUILD)

lint: $(STAMP)
	$(BIN)/ruff check configurator tests benchmarks
	$(BIN)/lint-imports

test: $(STAMP) lint  ## install and run the whole test suite (offscreen, no GPU, no network)
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q

bench: $(STAMP)  ## timing benchmarks (not part of the test suite)
	$(BIN)/python -m pytest -q benchmarks --benchmark-only -p no:randomly

clean:
	rm -rf $(VENV) build dist .pytest_cache .ruff_cache .benchmarks
