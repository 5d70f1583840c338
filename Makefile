# tensord: build, test and try it.
#
#   make test    install what is missing, run the C++ tests (bazel test //...), generate the large
#                test models if missing, then the end-to-end tests (pytest tests/), then the
#                executor, batching, model-manager and server tests again under AddressSanitizer
#                (`make asan`; its own output tree, ~15 minutes cold on 2 cores)
#   make serve   build, run the bundled demo model with tensorctl, then start the tensord daemon
#                on it (gRPC, port 8500) and print how to call it
#   make build   build everything (bazel build //...)
#   make deps    only install the Debian and Python packages that are missing
#
# Everything is offline after `make deps`: Bazel uses Debian's packages (see WORKSPACE).

SHELL := /bin/bash
.DEFAULT_GOAL := build

BAZEL ?= bazel
PYTHON ?= python3
# Extra flags, e.g. `make test BAZEL_TEST_FLAGS=--test_output=all PYTEST_FLAGS=-x`.
BAZEL_TEST_FLAGS ?=
PYTEST_FLAGS ?=

TENSORCTL := bazel-bin/clients/tensorctl/tensorctl
SERVE_PORT ?= 8500
SERVE_REST_PORT ?= 8501
DEMO_MODEL := tests/testdata/keras_mlp/1
DEMO_INPUT := features=[[0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5]]

APT_PACKAGES := bazel-bootstrap bazel-rules-java libgrpc++-dev protobuf-compiler-grpc \
	libprotobuf-dev protobuf-compiler libabsl-dev libeigen3-dev libgtest-dev libgmock-dev \
	libbenchmark-dev libsnappy-dev libre2-dev libicu-dev libcpp-httplib-dev libdnnl-dev \
	libtcmalloc-minimal4 pkg-config prometheus curl openssl
PYTHON_MODULES := tensorflow numpy pytest grpc grpc_health grpc_reflection kubernetes_validate \
	tensorflow_serving

# Reference data beside the checkout (../shared: TF Serving's test models). Suites that read it
# run in addition whenever it is present; a user's clone has none.
SHARED_DIR := $(abspath $(CURDIR)/../shared)
ifneq ($(wildcard $(SHARED_DIR)/testdata),)
export TENSORD_SHARED_DIR := $(SHARED_DIR)
endif

# Root runs apt-get directly; anyone else through sudo.
SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)
APT_INSTALL := $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq

.PHONY: all build test serve deps deps-apt deps-python models asan

# What runs under AddressSanitizer (with leak checks): the code that serves requests.
ASAN_TESTS := //runtime/exec/... //runtime/framework/... //runtime/util/... \
	//server/batching/... //server/model/... //server/tfserving/... //server/rest/... \
	//server:server_test

all: build

deps: deps-apt deps-python

# Quiet and fast when everything is installed; `apt-get update` only when something is missing.
deps-apt:
	@missing=""; \
	for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' "$$p" 2>/dev/null | grep -q "install ok installed" \
	    || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "deps: installing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -qq && $(APT_INSTALL) $$missing; \
	fi

# The import check only looks the modules up (importing TensorFlow takes seconds).
deps-python:
	@if ! $(PYTHON) -c 'import importlib.util, sys; \
	    sys.exit(any(importlib.util.find_spec(m) is None for m in sys.argv[1:]))' \
	    $(PYTHON_MODULES) 2>/dev/null; then \
	  echo "deps: installing Python packages from tests/requirements.txt"; \
	  $(PYTHON) -m pip --version >/dev/null 2>&1 \
	    || { $(SUDO) apt-get update -qq && $(APT_INSTALL) python3-pip; }; \
	  $(PYTHON) -m pip install -q -r tests/requirements.txt \
	    || $(PYTHON) -m pip install -q --break-system-packages -r tests/requirements.txt; \
	  $(PYTHON) -m pip install -q --no-deps -r tests/requirements-nodeps.txt \
	    || $(PYTHON) -m pip install -q --no-deps --break-system-packages \
	         -r tests/requirements-nodeps.txt; \
	fi

build: deps-apt
	$(BAZEL) build //...

# Runs every stage even when an earlier one fails, so one run reports everything; fails at the
# end if any stage failed. pytest's exit status 5 (nothing collected) is not a failure here.
test: deps
	@status=0; \
	$(BAZEL) test --keep_going $(BAZEL_TEST_FLAGS) //... || status=1; \
	$(MAKE) --no-print-directory models || status=1; \
	$(PYTHON) -m pytest -q -p no:cacheprovider $(PYTEST_FLAGS) tests/; rc=$$?; \
	[ $$rc -eq 0 ] || [ $$rc -eq 5 ] || status=1; \
	$(MAKE) --no-print-directory asan || status=1; \
	exit $$status

asan: deps-apt
	$(BAZEL) test --config=asan --keep_going $(BAZEL_TEST_FLAGS) $(ASAN_TESTS)

# The large models (tens of MB each) are not committed: tests/models/generate.py builds them
# with TensorFlow. Only the missing ones are generated.
models:
	@missing=$$($(PYTHON) -c 'import os, sys; sys.path.insert(0, "tests/models"); \
	    import generate; \
	    print(" ".join(m for m in generate.LARGE_MODELS if not os.path.isfile( \
	        os.path.join("tests/generated", m, "golden", "cases.json"))))') || missing=ALL; \
	if [ "$$missing" = ALL ]; then \
	  $(PYTHON) tests/models/generate.py --out tests/generated --set large; \
	elif [ -n "$$missing" ]; then \
	  echo "models: generating$$missing"; \
	  $(PYTHON) tests/models/generate.py --out tests/generated --only $$missing; \
	fi

serve: deps
	$(BAZEL) build //clients/tensorctl:tensorctl //server:tensord
	@echo
	@echo "== $(TENSORCTL) run $(DEMO_MODEL) --input '$(DEMO_INPUT)'"
	@$(TENSORCTL) run $(DEMO_MODEL) --input '$(DEMO_INPUT)'
	@echo
	@echo "== starting tensord (gRPC :$(SERVE_PORT), REST :$(SERVE_REST_PORT)) with $(dir $(DEMO_MODEL)) as model 'mlp'."
	@echo "Call it from another shell:"
	@echo "  curl -d '{\"instances\": [[0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5]]}' localhost:$(SERVE_REST_PORT)/v1/models/mlp:predict"
	@echo "  $(TENSORCTL) predict --server localhost:$(SERVE_PORT) --model mlp --input '$(DEMO_INPUT)'"
	@echo "  python3 clients/python/predict.py --server localhost:$(SERVE_PORT) --model mlp --input '$(DEMO_INPUT)'"
	@echo "  $(TENSORCTL) list --server localhost:$(SERVE_PORT)"
	@echo "  curl localhost:$(SERVE_REST_PORT)/v2/health/ready; curl localhost:$(SERVE_REST_PORT)/monitoring/prometheus/metrics"
	@echo "Stop it with Ctrl-C (it drains in-flight calls, then exits)."
	@echo
	bazel-bin/server/tensord --port=$(SERVE_PORT) --rest_api_port=$(SERVE_REST_PORT) --model_name=mlp --model_base_path=$(abspath $(dir $(DEMO_MODEL)))
