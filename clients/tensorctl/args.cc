#include "clients/tensorctl/args.h"

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace tensord {
namespace tensorctl {

const char kUsage[] = R"(usage: tensorctl <command> [flags]

Commands:
  inspect DIR [--tag_set TAGS] [--json]
      Show the tag sets and signatures of the SavedModel in DIR (every meta graph unless
      --tag_set is given), like `saved_model_cli show --all`; --json prints them as JSON.
  inspect --placement DIR [--tag_set TAGS] [--device POLICY] [--json]
      Load the SavedModel in DIR as tensord serves it and show on which device each node of
      the serving graph (and of its loop and branch bodies) runs: the device asked for (the
      graph's, else --device's), the one assigned, and whether it was soft-placed there.
  run DIR [--tag_set TAGS] [--signature_def KEY] [--input ALIAS=VALUE ...] [--output_dir D]
          [--device POLICY] [--profile RUNS]
      Load the SavedModel in DIR and run one signature. VALUE is a JSON nested list such as
      '[[1.0], [2.0]]', converted to the input's declared dtype (strings for DT_STRING, also
      {"b64": "..."}), or @FILE.npy. Prints {"outputs": {ALIAS: VALUE, ...}}; with
      --output_dir, writes D/ALIAS.npy for each output instead. With --profile, then runs the
      signature RUNS more times and prints where their time went: per op type, the kernels
      run and their wall time per run, most first (a loop's or branch's time counts under
      its While/If node; GPU kernels count the time to enqueue their work).
  predict --server HOST:PORT --model NAME [--version N | --label L] [--signature_def KEY]
          [--input ALIAS=VALUE ...] [--output_filter A,B]
      Call PredictionService.Predict on a TF Serving-compatible gRPC server. The inputs' dtypes
      come from GetModelMetadata; VALUE is as for run. Prints
      {"model_spec": {"name", "version", "signature_name"}, "outputs": {ALIAS: VALUE, ...}}.
  classify --server HOST:PORT --model NAME [--version N | --label L] [--signature_def KEY]
           --examples EXAMPLES [--context EXAMPLE]
  regress ... (the same flags)
      Call PredictionService.Classify / Regress with tf.Examples written as in TF Serving's
      REST API: EXAMPLES is a JSON list of objects, EXAMPLE one object, or @FILE.json holding
      it, e.g. '[{"x": 1.0, "n": [1, 2], "s": "a", "b": {"b64": "AP8="}}]'. Integers become
      int64_list, decimals (1.0, not 1) float_list, strings and {"b64": ...} bytes_list; a
      feature holds one value or a flat list. Prints {"results": [[["LABEL", SCORE], ...],
      ...]} (classify) or {"results": [VALUE, ...]} (regress), one entry per example.
  metadata --server HOST:PORT --model NAME [--version N | --label L]
      Print the model's SignatureDefMap (GetModelMetadata) as JSON.
  status --server HOST:PORT --model NAME [--version N]
      Print ModelService.GetModelStatus as JSON.
  list --server HOST:PORT [--json]
      List the server's models with each version's state (tensord's ModelRepository.ListModels;
      not part of TF Serving): a MODEL / VERSION / STATE table, or JSON with --json.
  reload --server HOST:PORT --config FILE
      Send the text-format ModelServerConfig in FILE to ModelService.HandleReloadConfigRequest
      and print the returned status as JSON.
  bench --server HOST:PORT --model NAME [--version N | --label L] [--signature_def KEY]
        [--concurrency N | --concurrency_range N1,N2,... | --request_rate R1,R2,...]
        [--input ALIAS=VALUE ...] [--shape ALIAS=D0,D1,...] [--batch B] [--output_filter A,B]
        [--metrics_url URL] [--csv FILE] [--json FILE] (and the bench flags below)
      Load-test PredictionService.Predict, like Triton's perf_analyzer. Closed loop
      (--concurrency, default 1): N workers, each sending its next request when the previous
      one returns. Open loop (--request_rate): R requests/s, evenly spaced or as Poisson
      arrivals, sent by up to --max_threads workers. Inputs: --input values as for predict;
      the others random data of the dtype and shape GetModelMetadata declares (floats in
      [0, 1), integers in [0, 100), strings of 8 letters; an unknown dim is --batch at dim 0
      and 1 elsewhere, or set with --shape). After --warmup_requests, windows of
      --measurement_interval_ms run until 3 in a row are stable (throughput and p99 within
      --stability_percentage) or --max_trials have run; the last 3 are reported. Prints per
      level: throughput (infer/s; rows/s with --batch), latency p50/p90/p95/p99/avg in ms,
      errors by gRPC code; with --metrics_url (tensord's
      http://HOST:8501/monitoring/prometheus/metrics) also the server's time per request:
      total, compute (graph run) and batch queue ("-" without batching). Progress goes to
      stderr. Exits with 1 when every request of a level failed.

Flags:
  --tag_set TAGS        comma-separated tags of the meta graph (run default: serve)
  --signature_def KEY   signature to run (default: serving_default)
  --input ALIAS=VALUE   one input; repeat for several
  --output_dir D        directory for the outputs' .npy files (created if missing)
  --profile RUNS        run: time RUNS more runs per kernel and print the profile (1-100000)
  --precision P         run: fp32 (default) or bf16, as tensord's --precision
  --json                inspect, list: machine-readable JSON
  --placement           inspect: load the model and show each node's device
  --device POLICY       inspect --placement, run: the device policy, as tensord's
                        --device_policy: auto (default: GPU 0 when there is one, else the
                        CPU, for nodes the graph does not pin), cpu (every node), gpu or
                        gpu:N (nodes the graph does not pin); soft placement runs a node
                        elsewhere when that device or its kernel is missing
  --server HOST:PORT    gRPC server of the server commands
  --model NAME          model name on the server
  --version N           model version (default: the server's latest)
  --label L             model version by its label (version_labels of the server's config)
  --output_filter A,B   predict, bench: only these outputs
  --examples EXAMPLES   classify, regress: the tf.Examples (JSON or @FILE)
  --context EXAMPLE     classify, regress: features shared by all examples (JSON or @FILE)
  --config FILE         reload: text-format ModelServerConfig
  --timeout_ms MS       gRPC deadline per call (default: 30000)
  -h, --help            show this help

Flags of bench:
  --concurrency N                closed loop with N requests in flight (default: 1)
  --concurrency_range N1,N2,...  one closed-loop level per value, e.g. 1,4,16,64
  --request_rate R1,R2,...       open loop at R requests/s, one level per value
  --request_distribution D       open-loop spacing: constant (default) or poisson
  --max_threads N                open-loop workers (default: 16)
  --shape ALIAS=D0,D1,...        shape of a random input (for its unknown dims)
  --batch B                      unknown dim 0 of random inputs (default: 1); adds rows/s
  --warmup_requests N            requests discarded before measuring (default: 10)
  --measurement_interval_ms MS   window length (default: 5000)
  --stability_percentage P       how far windows may differ and count as stable (default: 10)
  --max_trials N                 most windows per level (default: 10, at least 3)
  --metrics_url URL              the server's Prometheus metrics, for the server-side times
  --csv FILE, --json FILE        also write the results: a CSV line or a JSON object (in one
                                 array) per level, with the columns
      concurrency, request_rate     the level (the other one is empty / null)
      requests, errors              successful and failed requests in the reported windows
      error_codes                   failures by gRPC code: "CODE=N;CODE=N" / {"CODE": N}
      duration_s, windows, stable   the reported windows' length, windows run, stability
      throughput_infer_per_s        requests / duration_s
      throughput_rows_per_s         times --batch (only with --batch)
      latency_avg_ms, latency_p50_ms, latency_p90_ms, latency_p95_ms, latency_p99_ms,
      latency_max_ms                client-side latency of successful requests
      delayed                       open loop: sends over 1 ms late (all workers busy)
      server_requests, server_request_ms, server_compute_ms, server_queue_ms
                                    with --metrics_url: requests the server counted and its
                                    time per request (queue: null without batching)

Exit status: 0 on success, 1 on errors (server errors print "tensorctl: <gRPC code>: <message>"),
2 on usage errors.
)";

std::set<std::string> ParseTagSet(const std::string& text) {
  std::set<std::string> tags;
  for (absl::string_view tag : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    tags.insert(std::string(absl::StripAsciiWhitespace(tag)));
  }
  return tags;
}

absl::StatusOr<Args> ParseArgs(const std::vector<std::string>& argv) {
  Args args;
  if (argv.empty()) return absl::InvalidArgumentError("missing command (inspect or run)");
  const std::string& command = argv[0];
  if (command == "-h" || command == "--help" || command == "help") {
    args.command = Args::Command::kHelp;
    return args;
  }
  if (command == "inspect") {
    args.command = Args::Command::kInspect;
  } else if (command == "run") {
    args.command = Args::Command::kRun;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown command '", command,
                     "' (expected inspect, run, predict, classify, regress, metadata, status, "
                     "list, reload or bench)"));
  }
  const bool run = args.command == Args::Command::kRun;

  std::vector<std::string> positional;
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      args.command = Args::Command::kHelp;
      return args;
    }
    if (arg == "--") {
      positional.insert(positional.end(), argv.begin() + i + 1, argv.end());
      break;
    }
    if (!absl::StartsWith(arg, "--")) {
      positional.push_back(arg);
      continue;
    }
    std::string name = arg.substr(2);
    std::optional<std::string> value;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    if (name == "json" && !run) {
      if (value) return absl::InvalidArgumentError("--json takes no value");
      args.json = true;
      continue;
    }
    if (name == "placement" && !run) {
      if (value) return absl::InvalidArgumentError("--placement takes no value");
      args.placement = true;
      continue;
    }
    const bool known =
        name == "tag_set" || name == "device" ||
        (run && (name == "signature_def" || name == "input" || name == "output_dir" ||
                 name == "profile" || name == "precision"));
    if (!known) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown flag --", name, " for 'tensorctl ", command, "'"));
    }
    if (!value) {
      if (i + 1 >= argv.size()) {
        return absl::InvalidArgumentError(absl::StrCat("--", name, " needs a value"));
      }
      value = argv[++i];
    }
    if (name == "tag_set") {
      args.tag_set = ParseTagSet(*value);
    } else if (name == "device") {
      absl::StatusOr<DevicePolicy> policy = ParseDevicePolicy(*value);
      if (!policy.ok()) {
        return absl::InvalidArgumentError(absl::StrCat("--device: ", policy.status().message()));
      }
      args.device = *policy;
    } else if (name == "precision") {
      absl::StatusOr<ComputePrecision> precision = ParsePrecision(*value);
      if (!precision.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("--precision: ", precision.status().message()));
      }
      args.precision = *precision;
    } else if (name == "signature_def") {
      if (value->empty()) return absl::InvalidArgumentError("--signature_def is empty");
      args.signature_def = *value;
    } else if (name == "profile") {
      int runs = 0;
      if (!absl::SimpleAtoi(*value, &runs) || runs < 1 || runs > 100000) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--profile '", *value, "' must be a number of runs from 1 to 100000"));
      }
      args.profile_runs = runs;
    } else if (name == "output_dir") {
      if (value->empty()) return absl::InvalidArgumentError("--output_dir is empty");
      args.output_dir = *value;
    } else {  // input
      size_t eq = value->find('=');
      if (eq == std::string::npos || eq == 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--input '", *value, "' must be ALIAS=VALUE (VALUE: JSON or @file.npy)"));
      }
      InputSpec spec{value->substr(0, eq), value->substr(eq + 1)};
      for (const InputSpec& other : args.inputs) {
        if (other.alias == spec.alias) {
          return absl::InvalidArgumentError(
              absl::StrCat("input '", spec.alias, "' is given more than once"));
        }
      }
      args.inputs.push_back(std::move(spec));
    }
  }
  if (positional.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("'tensorctl ", command,
                                                   "' needs the SavedModel directory"));
  }
  if (positional.size() > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("unexpected argument '", positional[1], "' (only one directory)"));
  }
  args.dir = positional[0];
  if (args.device && !run && !args.placement) {
    return absl::InvalidArgumentError("--device needs --placement for 'tensorctl inspect'");
  }
  return args;
}

}  // namespace tensorctl
}  // namespace tensord
