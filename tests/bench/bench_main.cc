// tensord_bench: latency of one model's signature in the tensord runtime, measured in process.
//
//   tensord_bench MODEL_ROOT [--case 0] [--iterations 50] [--warmup 5]
//
// MODEL_ROOT is a generated test model (MODEL_ROOT/1 = SavedModel, MODEL_ROOT/golden/cases.json
// = inputs). Prints one JSON object: load time, latency percentiles and throughput. The Python
// driver (run_bench.py) measures TensorFlow, ONNX Runtime and OpenVINO on the same inputs.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "runtime/util/json.h"
#include "clients/common/npy.h"
#include "runtime/saved_model/loader.h"

namespace tensord {
namespace {

using Clock = std::chrono::steady_clock;

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

int Fail(const std::string& message) {
  std::fprintf(stderr, "tensord_bench: %s\n", message.c_str());
  return 1;
}

int Main(int argc, char** argv) {
  if (argc < 2) return Fail("usage: tensord_bench MODEL_ROOT [--case N] [--iterations N] [--warmup N]");
  const std::string root = argv[1];
  int case_index = 0, iterations = 50, warmup = 5;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    int* target = flag == "--case" ? &case_index
                  : flag == "--iterations" ? &iterations
                  : flag == "--warmup" ? &warmup : nullptr;
    if (target == nullptr || !absl::SimpleAtoi(argv[i + 1], target)) {
      return Fail("bad flag " + flag);
    }
  }
  std::ifstream in(root + "/golden/cases.json");
  std::stringstream text;
  text << in.rdbuf();
  auto cases = json::Parse(text.str());
  if (!cases.ok()) return Fail(std::string(cases.status().message()));
  const json::Value* list = cases->Find("cases");
  if (list == nullptr || case_index >= static_cast<int>(list->size())) return Fail("no such case");
  const json::Value& one = list->items()[case_index];
  std::map<std::string, Tensor> inputs;
  const json::Value* in_files = one.Find("inputs");
  for (const std::string& alias : in_files->keys()) {
    auto t = npy::ReadFile(root + "/golden/" + in_files->Find(alias)->string_value());
    if (!t.ok()) return Fail(std::string(t.status().message()));
    inputs[alias] = *t;
  }
  const std::string signature = one.Find("signature")->string_value();

  const auto load_start = Clock::now();
  auto bundle = SavedModelBundle::Load(root + "/1", LoadOptions());
  if (!bundle.ok()) return Fail(std::string(bundle.status().message()));
  const double load_ms = Ms(Clock::now() - load_start);

  for (int i = 0; i < warmup; ++i) {
    auto out = (*bundle)->RunSignature(signature, inputs);
    if (!out.ok()) return Fail(std::string(out.status().message()));
  }
  std::vector<double> times;
  const auto total_start = Clock::now();
  for (int i = 0; i < iterations; ++i) {
    const auto start = Clock::now();
    auto out = (*bundle)->RunSignature(signature, inputs);
    times.push_back(Ms(Clock::now() - start));
    if (!out.ok()) return Fail(std::string(out.status().message()));
  }
  const double total_ms = Ms(Clock::now() - total_start);
  std::sort(times.begin(), times.end());
  auto pct = [&](double p) { return times[std::min(times.size() - 1, size_t(p * times.size()))]; };
  std::printf(
      "{\"runtime\": \"tensord\", \"load_ms\": %.1f, \"iterations\": %d, \"mean_ms\": %.3f, "
      "\"p50_ms\": %.3f, \"p90_ms\": %.3f, \"min_ms\": %.3f, \"frozen_variables\": %d, "
      "\"folded_nodes\": %d}\n",
      load_ms, iterations, total_ms / iterations, pct(0.5), pct(0.9), times.front(),
      (*bundle)->frozen_variables(), (*bundle)->folded_nodes());
  return 0;
}

}  // namespace
}  // namespace tensord

int main(int argc, char** argv) { return tensord::Main(argc, argv); }
