# tensord: build, test and try it.
#
#   make test    install what is missing, run the C++ tests (bazel test //...), generate the large
#                test models if missing, then the end-to-end tests (pytest tests/), then the
#                executor, batching, model-manager and server tests again under AddressSanitizer
#                (`make asan`; its own output tree), the batching scheduler and queue tests
#                under ThreadSanitizer (`make tsan`), and finally every fuzz target for 30 s
#                (`make fuzz`, clang, its own output base). A fresh clone on 2 cores took 69 min
#                (2026-12-02): bazel test 1715 s, models 165 s, pytest 266 s, asan 1052 s,
#                tsan 223 s, fuzz 729 s (its build included).
#   make fuzz    FUZZ_SECONDS=N: fuzz every target of tests/fuzz for N seconds (default 30),
#                from a random seed unless FUZZ_SEED=S
#   make serve   build, run the bundled demo model with tensorctl, then start the tensord daemon
#                on it (gRPC, port 8500) and print how to call it
#   make soak    SOAK_SECONDS=N (default 600) soak test under faults -> tests/soak/SOAK_REPORT.md
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
	libtcmalloc-minimal4 pkg-config prometheus curl openssl clang libclang-rt-14-dev \
	libevent-dev libsimdjson-dev zlib1g-dev
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

.PHONY: all build test serve deps deps-apt deps-python models asan tsan fuzz soak

# What runs under AddressSanitizer (with leak checks): the code that serves requests.
ASAN_TESTS := //runtime/exec/... //runtime/framework/... //runtime/util/... \
	//server/batching/... //server/model/... //server/tfserving/... //server/rest/... \
	//server:server_test

# The fuzz targets and the Bazel that builds them with clang: an output base of its own, one
# per checkout, so the normal build's gcc toolchain is never reconfigured.
FUZZ_SECONDS ?= 30
# libFuzzer's seed; 0 = a random one. `make test` pins it, so that its fuzzing stage is
# repeatable: a failure there is the same input again on the next run.
FUZZ_SEED ?= 0
FUZZ_TARGETS := tensor_proto_fuzzer rest_request_fuzzer example_fuzzer saved_model_fuzzer \
	tensor_bundle_fuzzer tfrecord_fuzzer model_config_fuzzer batching_parameters_fuzzer
FUZZ_BAZEL := $(BAZEL) --output_base=$(HOME)/.cache/tensord-fuzz/$(shell echo "$(CURDIR)" | md5sum | cut -c1-12) --max_idle_secs=600

# What runs under ThreadSanitizer: batching's scheduler and queues, whose threads meet on
# std::mutex, and the REST number-list reader's two threads. Left out: the executor and the model manager, which synchronise through
# absl::Mutex and absl::Notification from Debian's uninstrumented Abseil, invisible to TSan (it
# reports races on data those locks guard); the servers (gRPC, also uninstrumented); and the
# batching runner and health tests, which load a real model and so need every kernel built
# under TSan, a build CI's 90 minutes on 2 cores cannot also fit.
TSAN_TESTS := //server/batching:batch_queue_test //server/batching:batch_scheduler_test \
	//server/batching:batch_merge_test //server/batching:batching_options_test \
	//server/rest:number_list_test

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
# Each stage prints its wall time, the figures that keep CI within its 90 minutes.
test: deps
	@status=0; \
	stage() { local start=$$SECONDS rc; "$$@"; rc=$$?; \
	  echo "make test: stage '$$*' took $$((SECONDS - start)) s"; return $$rc; }; \
	stage $(BAZEL) test --keep_going $(BAZEL_TEST_FLAGS) //... || status=1; \
	stage $(MAKE) --no-print-directory models || status=1; \
	stage $(PYTHON) -m pytest -q -p no:cacheprovider $(PYTEST_FLAGS) tests/; rc=$$?; \
	[ $$rc -eq 0 ] || [ $$rc -eq 5 ] || status=1; \
	stage $(MAKE) --no-print-directory asan || status=1; \
	stage $(MAKE) --no-print-directory tsan || status=1; \
	stage $(MAKE) --no-print-directory fuzz FUZZ_SEED=1 || status=1; \
	exit $$status

asan: deps-apt
	$(BAZEL) test --config=asan --keep_going $(BAZEL_TEST_FLAGS) $(ASAN_TESTS)

tsan: deps-apt
	$(BAZEL) test --config=tsan --keep_going $(BAZEL_TEST_FLAGS) $(TSAN_TESTS)

# Fuzzing: every target of tests/fuzz under libFuzzer with ASan and UBSan for FUZZ_SECONDS each,
# starting from its committed corpus. New corpus entries go to a scratch directory; a crash's
# input is written to tests/fuzz/corpus/<target>/crash-<sha1> (commit it with the fix: the
# replay test of `bazel test //tests/fuzz/...` runs it from then on). One status line per target,
# in Bazel's form, for .ci/run.
fuzz: deps-apt
	$(FUZZ_BAZEL) build --config=fuzz $(addprefix //tests/fuzz:,$(FUZZ_TARGETS))
	@status=0; \
	for t in $(FUZZ_TARGETS); do \
	  work=$$(mktemp -d "$${TMPDIR:-/tmp}/tensord-fuzz-$$t.XXXXXX"); \
	  log="$$work/fuzz.log"; \
	  mkdir "$$work/corpus"; \
	  if bazel-fuzz-bin/tests/fuzz/$$t -max_total_time=$(FUZZ_SECONDS) -seed=$(FUZZ_SEED) \
	       -timeout=10 -rss_limit_mb=2560 -max_len=1048576 -print_final_stats=1 \
	       -artifact_prefix=tests/fuzz/corpus/$$t/ "$$work/corpus" tests/fuzz/corpus/$$t \
	       >"$$log" 2>&1; then \
	    echo "//tests/fuzz:$$t.fuzz PASSED ($(FUZZ_SECONDS) s, $$(sed -n 's/^stat::number_of_executed_units: *//p' "$$log") runs)"; \
	  else \
	    status=1; tail -n 60 "$$log"; \
	    echo "//tests/fuzz:$$t.fuzz FAILED (input saved under tests/fuzz/corpus/$$t/)"; \
	  fi; \
	  rm -rf "$$work"; \
	done; \
	exit $$status

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

# The soak test (tests/soak/soak.py): gRPC and REST clients at ~2x the measured saturation for
# SOAK_SECONDS while versions swap, corrupt versions appear, the config reloads and malformed
# requests arrive; then SIGTERM mid-load. Fails unless every pass criterion holds.
soak: deps
	$(BAZEL) build //server:tensord
	$(PYTHON) tests/soak/soak.py --seconds $(or $(SOAK_SECONDS),600) --out tests/soak/SOAK_REPORT.md

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
