// The load generator of `tensorctl bench`: workers that send one PredictRequest again and
// again, and the measurement loop that cuts their completions into windows until the last
// three are stable (bench_stats.h).
//
// Closed loop (LoadLevel::concurrency = N): N workers, each sending its next request as soon as
// its previous one completes, so N requests are always in flight.
// Open loop (LoadLevel::request_rate = R): BenchArgs::max_threads workers take send times from
// one shared schedule, spaced 1/R apart (constant) or by exponential gaps of mean 1/R (Poisson
// arrivals, from a fixed seed so that every run sends the same pattern), and send at that
// time. A worker blocks in its call, so when all of them are busy, sends leave late; those are
// counted as delayed, and the achieved rate shows the shortfall.
//
// Each worker owns a channel with its own TCP connection (channels share no subchannels), its
// own copy of the request, a synchronous stub and a std::thread. Latency is steady_clock time
// around the call; a request counts in the window in which it completes. A level runs:
// connect every channel; warm up (the first BenchArgs::warmup_requests completions are
// dropped); measure windows of measurement_interval_ms until the last three are stable or
// max_trials windows have passed; stop, cancelling calls still in flight (not counted).
#ifndef TENSORD_CLIENTS_TENSORCTL_BENCH_LOAD_H_
#define TENSORD_CLIENTS_TENSORCTL_BENCH_LOAD_H_

#include "absl/status/statusor.h"
#include "clients/tensorctl/bench_args.h"
#include "clients/tensorctl/bench_stats.h"
#include "protos/serving/predict.pb.h"

namespace tensord {
namespace tensorctl {

// One load level: exactly one of the two is positive.
struct LoadLevel {
  int concurrency = 0;
  double request_rate = 0;
};

// Called on RunLevel's thread, never concurrently: MeasurementStarted after warm-up, just
// before the first window starts; WindowMeasured right after each window ends. The load goes
// on meanwhile, so time spent in them (scraping server metrics, say) is part of the next
// window like any other.
class LevelObserver {
 public:
  virtual ~LevelObserver() = default;
  virtual void MeasurementStarted() {}
  // `trial` counts windows from 1.
  virtual void WindowMeasured(int trial, const Window& window) {}
};

struct LevelResult {
  Window measured;      // the reported windows merged: the last three (fewer if fewer ran)
  bool stable = false;  // whether those windows passed IsStable
  int trials = 0;       // windows measured in all
};

// Runs one level against args.target.server with args' measurement settings and per-request
// deadline (args.target.timeout_ms). Errors: UNAVAILABLE when a channel cannot connect within
// the deadline. RPC failures are not errors of RunLevel; they are counted by code in the result.
absl::StatusOr<LevelResult> RunLevel(const BenchArgs& args, const LoadLevel& level,
                                     const ::tensorflow::serving::PredictRequest& request,
                                     LevelObserver* observer);

}  // namespace tensorctl
}  // namespace tensord

#endif  // TENSORD_CLIENTS_TENSORCTL_BENCH_LOAD_H_
