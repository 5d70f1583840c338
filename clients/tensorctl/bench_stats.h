// The statistics of `tensorctl bench`: what one measurement window recorded, exact latency
// percentiles, the stability rule that ends a level, and the aggregate that gets reported.
// Pure functions on values; safe to call from any thread.
#ifndef TENSORD_CLIENTS_TENSORCTL_BENCH_STATS_H_
#define TENSORD_CLIENTS_TENSORCTL_BENCH_STATS_H_

#include <cstdint>
#include <map>
#include <vector>

namespace tensord {
namespace tensorctl {

// The requests that completed within one measurement window (or several, merged).
struct Window {
  double duration_s = 0;
  std::vector<int64_t> latencies_ns;  // successful requests, in completion order
  std::map<int, int64_t> errors;      // grpc::StatusCode -> failed requests
  // Open loop only: requests that left later than scheduled because every worker was busy.
  int64_t delayed = 0;

  int64_t successes() const { return static_cast<int64_t>(latencies_ns.size()); }
  int64_t error_count() const;
  // Successful requests per second; 0 for an empty window.
  double throughput() const;
};

// Latency statistics of successful requests, in milliseconds. All zero when count is 0.
struct LatencySummary {
  int64_t count = 0;
  double avg_ms = 0;
  double p50_ms = 0;
  double p90_ms = 0;
  double p95_ms = 0;
  double p99_ms = 0;
  double max_ms = 0;
};

// The nearest-rank percentile of ascending, non-empty `sorted`: the smallest sample that at
// least p% of the samples do not exceed, sorted[ceil(p / 100 * n) - 1] (sorted[0] for p = 0).
// Always a recorded value, never an interpolation, so p99 of 100 samples is the 99th smallest.
int64_t Percentile(const std::vector<int64_t>& sorted, double p);

LatencySummary Summarize(std::vector<int64_t> latencies_ns);

// The stability rule: `windows` (the most recent ones, normally three) are stable when both
// their throughputs and their p99 latencies lie within `percentage` of each other, that is
// max <= min * (1 + percentage / 100). Windows without any successful request are stable only
// if all of them are (a server that fails everything will not change); fewer than two windows
// are never stable, since there is nothing to compare.
bool IsStable(const std::vector<Window>& windows, double percentage);

// One window covering all of `windows`: durations and counts added, latencies concatenated.
Window Merge(const std::vector<Window>& windows);

}  // namespace tensorctl
}  // namespace tensord

#endif  // TENSORD_CLIENTS_TENSORCTL_BENCH_STATS_H_
