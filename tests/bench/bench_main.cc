// tensord_bench: one model's signature in the tensord runtime, measured in process.
//
//   tensord_bench EXPORT_DIR --inputs ALIAS=FILE.npy[,ALIAS=FILE.npy...]
//       [--batch_inputs ALIAS=FILE.npy,...] [--signature serving_default]
//       [--iterations 100] [--warmup 10] [--batch_iterations 10]
//       [--intra_op_threads 0] [--inter_op_threads 0] [--precision fp32|bf16]
//
// EXPORT_DIR is a SavedModel directory. --inputs are timed one run at a time for latency
// percentiles; --batch_inputs (optional, usually the same rows tiled to batch 32) are timed for
// throughput. Thread counts of 0 keep CpuDevice::Options' defaults; --precision is tensord's
// --precision (the JSON names the precision that ran). The Python driver
// (run_bench.py) writes the .npy files and measures TensorFlow, ONNX Runtime and OpenVINO on the
// same bytes.
//
// Prints one JSON object (the schema run_bench.py's Python workers print too):
//   load_ms       SavedModelBundle::Load: parse, inline, restore variables, init op, freeze
//                 and fold constants.
//   first_run_ms  the first batch-1 run, which builds the execution plan and creates kernels
//                 (both lazy in tensord); load_ms + first_run_ms is the time until ready.
//   latency       p50/p99/mean/min over --iterations batch-1 runs after --warmup runs.
//   throughput    mean time of --batch_iterations runs on --batch_inputs after --warmup runs
//                 ({"error": ...} where those inputs fail).
//   rss           VmRSS (MB) before Load, after it, when ready (after the first run) and after
//                 all runs, and the process's peak VmHWM.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "clients/common/npy.h"
#include "runtime/framework/device_set.h"
#include "runtime/saved_model/loader.h"
#include "runtime/util/json.h"
#include "runtime/util/process_setup.h"

namespace tensord {
namespace {

using Clock = std::chrono::steady_clock;
using Inputs = std::map<std::string, Tensor>;

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

int Fail(const std::string& message) {
  std::fprintf(stderr, "tensord_bench: %s\n", message.c_str());
  return 1;
}

// A "VmRSS:"-style field of /proc/self/status in MB; -1 where unreadable (not Linux).
double ProcStatusMb(const std::string& field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(field + ":", 0) != 0) continue;
    double kb = 0;
    if (std::sscanf(line.c_str() + field.size() + 1, "%lf", &kb) == 1) return kb / 1024.0;
  }
  return -1;
}

// "a=x.npy,b=y.npy" → tensors keyed by alias.
absl::StatusOr<Inputs> ReadInputs(const std::string& spec) {
  Inputs inputs;
  for (absl::string_view item : absl::StrSplit(spec, ',', absl::SkipEmpty())) {
    std::pair<std::string, std::string> kv = absl::StrSplit(item, absl::MaxSplits('=', 1));
    if (kv.first.empty() || kv.second.empty()) {
      return absl::InvalidArgumentError("expected ALIAS=FILE.npy, got " + std::string(item));
    }
    auto tensor = npy::ReadFile(kv.second);
    if (!tensor.ok()) return tensor.status();
    inputs[kv.first] = *std::move(tensor);
  }
  return inputs;
}

struct Flags {
  std::string export_dir;
  std::string signature = kDefaultServingSignature;
  std::string inputs, batch_inputs;
  int iterations = 100, warmup = 10, batch_iterations = 10;
  int intra_op_threads = 0, inter_op_threads = 0;
  std::string precision = "fp32";
};

bool ParseFlags(int argc, char** argv, Flags* flags, std::string* error) {
  if (argc < 2) {
    *error = "usage: tensord_bench EXPORT_DIR --inputs ALIAS=FILE.npy,... [flags]";
    return false;
  }
  flags->export_dir = argv[1];
  const std::map<std::string, std::string*> strings = {
      {"--signature", &flags->signature},
      {"--inputs", &flags->inputs},
      {"--batch_inputs", &flags->batch_inputs},
      {"--precision", &flags->precision}};
  const std::map<std::string, int*> ints = {
      {"--iterations", &flags->iterations},
      {"--warmup", &flags->warmup},
      {"--batch_iterations", &flags->batch_iterations},
      {"--intra_op_threads", &flags->intra_op_threads},
      {"--inter_op_threads", &flags->inter_op_threads}};
  for (int i = 2; i < argc; i += 2) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) {
      *error = "missing value for " + flag;
      return false;
    }
    const auto s = strings.find(flag);
    const auto n = ints.find(flag);
    if (s != strings.end()) {
      *s->second = argv[i + 1];
    } else if (n == ints.end() || !absl::SimpleAtoi(argv[i + 1], n->second)) {
      *error = "bad flag " + flag + " " + argv[i + 1];
      return false;
    }
  }
  if (flags->inputs.empty()) {
    *error = "--inputs is required";
    return false;
  }
  if (flags->iterations < 1 || flags->batch_iterations < 1 || flags->warmup < 0) {
    *error = "--iterations and --batch_iterations must be positive, --warmup non-negative";
    return false;
  }
  return true;
}

// Runs the signature `count` times; appends each run's milliseconds to `times` when non-null.
absl::Status RunTimes(const SavedModelBundle& bundle, const std::string& signature,
                      const Inputs& inputs, int count, std::vector<double>* times) {
  for (int i = 0; i < count; ++i) {
    const auto start = Clock::now();
    auto out = bundle.RunSignature(signature, inputs);
    if (times != nullptr) times->push_back(Ms(Clock::now() - start));
    if (!out.ok()) return out.status();
  }
  return absl::OkStatus();
}

// Nearest-rank percentile of sorted `times` (p in (0, 1]).
double Percentile(const std::vector<double>& times, double p) {
  // The epsilon keeps 0.99 * 100 at rank 99 despite rounding.
  const size_t rank = static_cast<size_t>(std::ceil(p * times.size() - 1e-9));
  return times[std::min(times.size(), std::max<size_t>(rank, 1)) - 1];
}

double Mean(const std::vector<double>& times) {
  double sum = 0;
  for (double t : times) sum += t;
  return sum / times.size();
}

int64_t BatchSize(const Inputs& inputs) {
  for (const auto& [alias, tensor] : inputs) {
    if (tensor.shape().dims() > 0) return tensor.dim_size(0);
  }
  return 1;
}

int Main(int argc, char** argv) {
  Flags flags;
  std::string error;
  if (!ParseFlags(argc, argv, &flags, &error)) return Fail(error);
  // Made before the load, as the server makes its devices at startup.
  DeviceSet devices(DeviceSetOptions{flags.intra_op_threads, flags.inter_op_threads});
  json::Value rss = json::Value::Object();
  rss.Set("before_load_mb", json::Value::Number(ProcStatusMb("VmRSS")));
  LoadOptions options;
  options.session.devices = &devices;
  absl::StatusOr<ComputePrecision> precision = ParsePrecision(flags.precision);
  if (!precision.ok()) return Fail(std::string(precision.status().message()));
  options.precision = *precision;
  const auto load_start = Clock::now();
  auto bundle = SavedModelBundle::Load(flags.export_dir, options);
  if (!bundle.ok()) return Fail(std::string(bundle.status().message()));
  const double load_ms = Ms(Clock::now() - load_start);
  rss.Set("loaded_mb", json::Value::Number(ProcStatusMb("VmRSS")));
  // Read only now: a server holds no request data after a load.
  auto inputs = ReadInputs(flags.inputs);
  if (!inputs.ok()) return Fail(std::string(inputs.status().message()));
  auto batch_inputs = ReadInputs(flags.batch_inputs);
  if (!batch_inputs.ok()) return Fail(std::string(batch_inputs.status().message()));

  std::vector<double> first;
  absl::Status status = RunTimes(**bundle, flags.signature, *inputs, 1, &first);
  if (!status.ok()) return Fail(std::string(status.message()));
  rss.Set("ready_mb", json::Value::Number(ProcStatusMb("VmRSS")));

  std::vector<double> times;
  status = RunTimes(**bundle, flags.signature, *inputs, flags.warmup, nullptr);
  if (status.ok()) status = RunTimes(**bundle, flags.signature, *inputs, flags.iterations, &times);
  if (!status.ok()) return Fail(std::string(status.message()));
  std::sort(times.begin(), times.end());

  json::Value result = json::Value::Object();
  result.Set("runtime", json::Value::String("tensord"));
  // What ran: the requested precision, or fp32 where the CPU has no bfloat16 arithmetic.
  result.Set("precision", json::Value::String(PrecisionName((*bundle)->precision())));
  result.Set("load_ms", json::Value::Number(load_ms));
  result.Set("first_run_ms", json::Value::Number(first[0]));
  json::Value latency = json::Value::Object();
  latency.Set("iterations", json::Value::Int(flags.iterations));
  latency.Set("p50_ms", json::Value::Number(Percentile(times, 0.5)));
  latency.Set("p99_ms", json::Value::Number(Percentile(times, 0.99)));
  latency.Set("mean_ms", json::Value::Number(Mean(times)));
  latency.Set("min_ms", json::Value::Number(times.front()));
  result.Set("latency", latency);

  if (!batch_inputs->empty()) {
    std::vector<double> batch_times;
    status = RunTimes(**bundle, flags.signature, *batch_inputs, flags.warmup, nullptr);
    if (status.ok()) {
      status = RunTimes(**bundle, flags.signature, *batch_inputs, flags.batch_iterations,
                        &batch_times);
    }
    json::Value throughput = json::Value::Object();
    if (status.ok()) {
      const int64_t batch = BatchSize(*batch_inputs);
      throughput.Set("batch", json::Value::Int(batch));
      throughput.Set("iterations", json::Value::Int(flags.batch_iterations));
      throughput.Set("mean_ms", json::Value::Number(Mean(batch_times)));
      throughput.Set("per_s", json::Value::Number(batch * 1000.0 / Mean(batch_times)));
    } else {
      // E.g. a model exported with a fixed batch size: the latency results still stand.
      throughput.Set("error", json::Value::String(std::string(status.message())));
    }
    result.Set("throughput", throughput);
  }

  rss.Set("after_runs_mb", json::Value::Number(ProcStatusMb("VmRSS")));
  rss.Set("peak_mb", json::Value::Number(ProcStatusMb("VmHWM")));
  result.Set("rss", rss);
  result.Set("frozen_variables", json::Value::Int((*bundle)->frozen_variables()));
  result.Set("folded_nodes", json::Value::Int((*bundle)->folded_nodes()));
  std::printf("%s\n", json::Write(result).c_str());
  return 0;
}

}  // namespace
}  // namespace tensord

int main(int argc, char** argv) {
  tensord::SetUpProcess();
  return tensord::Main(argc, argv);
}
