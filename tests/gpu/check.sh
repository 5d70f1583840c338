#!/usr/bin/env bash
# The GPU check. Runs on the GPU machine, from the repository root, on what tests/gpu/pack.sh
# packed here (.gpu_pack/pack.tar.xz); needs the NVIDIA driver, Python 3 with NumPy, pytest and
# PyTorch, and cuBLAS (found in the Python wheels when the system has none):
#   1. every packed test binary, whose kernel cases run on the CPU and on the GPU;
#   2. the placement of the Transformer test model under `--device gpu`;
#   3. every golden case of tests/testdata through `tensorctl run --device gpu`;
#   4. the served path: tests/gpu/serve_check.py;
#   5. tensord against PyTorch eager on the same GPU: tests/gpu/torch_bench.py.
# Writes a report to RESULTS (default: RESULTS.md in its scratch folder) and exits non-zero
# when a stage failed. Well under the device tool's 10 minutes on an H100 or H200.
#
#   bash tests/gpu/check.sh [RESULTS]
# The stage functions are called through `stage`, which shellcheck cannot follow.
# shellcheck disable=SC2317
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
repo="$PWD"
work="$(mktemp -d)"
results="${1:-$work/RESULTS.md}"
tar -xJf .gpu_pack/pack.tar.xz -C "$work" || { echo "check.sh: run tests/gpu/pack.sh first" >&2; exit 1; }
if ! gpu="$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader)"; then
  echo "check.sh: no GPU visible (nvidia-smi failed)" >&2
  exit 1
fi

# cuBLAS and friends from the NVIDIA wheels beside PyTorch, for the libraries tensord opens.
wheel_libs="$(python3 - <<'PY'
import glob, os
try:
    import nvidia
except ImportError:
    raise SystemExit
dirs = {os.path.dirname(p) for base in nvidia.__path__
        for p in glob.glob(os.path.join(base, "**", "lib*.so*"), recursive=True)}
print(":".join(sorted(dirs)))
PY
)"
export LD_LIBRARY_PATH="$work/lib${wheel_libs:+:$wheel_libs}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PYTHONPATH="$repo/tests/gpu${PYTHONPATH:+:$PYTHONPATH}"

failed=0
report=()
stage() {  # NAME COMMAND...: runs it, logs to $work/NAME.log, records the outcome
  local name="$1"; shift
  local start=$SECONDS
  if "$@" >"$work/$name.log" 2>&1; then
    report+=("| $name | passed | $((SECONDS - start)) s |")
  else
    report+=("| $name | FAILED | $((SECONDS - start)) s |")
    failed=1
    echo "=== $name failed; the end of its log:"
    tail -n 40 "$work/$name.log"
  fi
  echo "$name: ${report[-1]}"
}

run_tests() {
  local bin status=0
  for bin in "$work"/tests/*; do
    local name; name="$(basename "$bin")"
    mkdir -p "$work/tmp/$name"
    if TEST_SRCDIR="$(dirname "$repo")" TEST_WORKSPACE="$(basename "$repo")" \
        TEST_TMPDIR="$work/tmp/$name" timeout 300 "$bin" >"$work/tmp/$name.log" 2>&1; then
      echo "PASSED $name"
    else
      echo "FAILED $name"
      tail -n 30 "$work/tmp/$name.log"
      status=1
    fi
  done
  # The kernel cases ran on the GPU only if the tests saw one.
  if ! grep -h "^TestDevices:" "$work"/tmp/*.log | grep -q "GPU"; then
    echo "the kernel tests saw no GPU:"; grep -h "^TestDevices:" "$work"/tmp/*.log | sort -u
    status=1
  fi
  return "$status"
}

placement() {
  "$work/bin/tensorctl" inspect --placement --json --device gpu \
      tests/testdata/keras_transformer/1 >"$work/placement.json" &&
  python3 - "$work/placement.json" <<'PY'
import collections, json, sys
record = json.load(open(sys.argv[1]))
ops = collections.defaultdict(collections.Counter)
for node in record["nodes"]:
    ops[node["assigned"]][node["op"]] += 1
for device, counts in sorted(ops.items()):
    print(device, sum(counts.values()), dict(sorted(counts.items())))
if not any("GPU" in device for device in ops):
    sys.exit("no node on a GPU")
PY
}

stage gpu_tests run_tests
stage placement placement
stage golden_parity env TENSORCTL="$work/bin/tensorctl" TENSORCTL_DEVICE=gpu \
  python3 -m pytest -q -p no:cacheprovider tests/parity_test.py -k test_golden
stage served python3 tests/gpu/serve_check.py "$work/bin/tensord"
stage benchmark python3 tests/gpu/torch_bench.py "$work/weights" --tensord "$work/bin/tensord" \
  --tensorctl "$work/bin/tensorctl" --report "$work/bench.md"

{
  echo "# GPU check"
  echo
  echo "tests/gpu/check.sh at commit $(cat "$work/COMMIT") (packed by tests/gpu/pack.sh) on $gpu, $(date -u +%Y-%m-%d)."
  echo
  echo "| stage | result | time |"
  echo "|---|---|---|"
  printf '%s\n' "${report[@]}"
  echo
  echo "## Test binaries"
  echo
  echo "$(grep -c '^PASSED' "$work/gpu_tests.log") passed, $(grep -c '^FAILED' "$work/gpu_tests.log") failed; $(grep -h '^TestDevices:' "$work"/tmp/*.log | sort | uniq -c | sed 's/^ *//')"
  grep '^FAILED' "$work/gpu_tests.log" | sed 's/^/- /'
  echo
  echo "## Placement of keras_transformer with --device gpu (nodes per device, by op)"
  echo
  sed 's/^/    /' "$work/placement.log"
  echo
  echo "## Golden parity (tensorctl run --device gpu)"
  echo
  tail -n 1 "$work/golden_parity.log"
  grep '^FAILED' "$work/golden_parity.log" | sed 's/^/- /'
  echo
  echo "## Served path"
  echo
  grep -v '^20[0-9][0-9]-' "$work/served.log" | sed 's/^/    /'
  echo
  echo "## tensord against PyTorch eager"
  echo
  cat "$work/bench.md" 2>/dev/null || echo "(no benchmark: the stage failed)"
} >"$results"
echo "check.sh: report in $results"
exit $failed
