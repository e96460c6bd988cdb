# Two set-up commands: `make demo` and `make test`. Both create .venv and install.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

export LITELLM_LOCAL_MODEL_COST_MAP := True
export RAY_AUTH_MODE := disabled
export RAY_USAGE_STATS_ENABLED := 0

.PHONY: demo test install lint clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/prorex demo

test: $(STAMP)
	$(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check prorex workers tests

clean:
	rm -rf $(VENV) demo_out bench_out .pytest_cache
