// Command-line parsing for `tensorctl bench`, the load generator for TF Serving's gRPC Predict.
// Flags take "--name value" or "--name=value". The flags it shares with `tensorctl predict`
// (--server, --model, --version, --label, --signature_def, --input, --output_filter,
// --timeout_ms) are parsed by server_args.h's SetServerFlag into `target`.
#ifndef TENSORD_CLIENTS_TENSORCTL_BENCH_ARGS_H_
#define TENSORD_CLIENTS_TENSORCTL_BENCH_ARGS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "clients/tensorctl/server_args.h"

namespace tensord {
namespace tensorctl {

struct BenchArgs {
  bool help = false;
  // The model and request: server, model, version or label, signature_def, inputs,
  // output_filter, timeout_ms (the deadline of each request).
  ServerArgs target;

  // The load levels, one result row each: closed loop with this many workers (--concurrency,
  // --concurrency_range), or open loop at these rates in requests per second (--request_rate).
  // Exactly one of the two is non-empty.
  std::vector<int> concurrency;
  std::vector<double> request_rates;
  // Open loop: the spacing of send times.
  enum class Distribution { kConstant, kPoisson };
  Distribution distribution = Distribution::kConstant;
  int max_threads = 16;  // open loop: the workers that send on schedule

  // Synthesised inputs: the shape of an input whose signature shape has unknown dims, and the
  // size of unknown dim 0 (also the rows per request that rows/s counts).
  std::map<std::string, std::vector<int64_t>> shapes;
  std::optional<int64_t> batch;

  // Measurement: requests discarded first, then windows until three in a row are stable.
  int warmup_requests = 10;
  int64_t measurement_interval_ms = 5000;
  double stability_percentage = 10;
  int max_trials = 10;

  std::string metrics_url;  // "" = no server-side breakdown
  std::string csv_path;     // "" = none
  std::string json_path;    // "" = none
};

// Parses argv[1:] whose first element is "bench". Errors are usage errors.
absl::StatusOr<BenchArgs> ParseBenchArgs(const std::vector<std::string>& args);

}  // namespace tensorctl
}  // namespace tensord

#endif  // TENSORD_CLIENTS_TENSORCTL_BENCH_ARGS_H_
