// The results of `tensorctl bench`, one row per load level: a table for people, and CSV and
// JSON with a fixed set of columns for scripts.
//
// Columns (CSV header order; JSON keys; empty in CSV and null in JSON where they do not apply):
//   concurrency             closed loop: requests kept in flight
//   request_rate            open loop: the target rate, requests/s
//   requests                successful requests in the reported windows
//   errors                  failed requests in them
//   error_codes             failures by gRPC code: CSV "CODE=N;CODE=N", JSON {"CODE": N}
//   duration_s              length of the reported windows together
//   windows                 measurement windows run (the last three are reported)
//   stable                  whether the reported windows met the stability rule
//   throughput_infer_per_s  requests / duration_s
//   throughput_rows_per_s   throughput_infer_per_s * --batch (only with --batch)
//   latency_avg_ms, latency_p50_ms, latency_p90_ms, latency_p95_ms, latency_p99_ms,
//   latency_max_ms          client-side latency of successful requests
//   delayed                 open loop: sends that left over 1 ms late (all workers were busy)
//   server_requests         with --metrics_url: requests the server counted for the model
//   server_request_ms       ... server time per request (tensord_request_duration_seconds)
//   server_compute_ms       ... graph execution per request (tensord_runtime_duration_seconds)
//   server_queue_ms         ... batch queue wait per request; null without batching
// Times are rounded to the microsecond, rates to 0.01/s.
#ifndef TENSORD_CLIENTS_TENSORCTL_BENCH_REPORT_H_
#define TENSORD_CLIENTS_TENSORCTL_BENCH_REPORT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "clients/tensorctl/bench_load.h"
#include "clients/tensorctl/bench_server_metrics.h"

namespace tensord {
namespace tensorctl {

struct LevelReport {
  LoadLevel level;
  LevelResult result;
  std::optional<ServerBreakdown> server;  // with --metrics_url
};

struct ReportOptions {
  std::optional<int64_t> batch;  // rows per request, for rows/s
  bool server = false;           // the table shows the server columns
};

// An aligned table with a header line; a note under it explains a '*' on unstable levels.
std::string ReportTable(const std::vector<LevelReport>& levels, const ReportOptions& options);
// The header line and one line per level.
std::string ReportCsv(const std::vector<LevelReport>& levels, const ReportOptions& options);
// A JSON array of one object per level, two-space indented.
std::string ReportJson(const std::vector<LevelReport>& levels, const ReportOptions& options);

}  // namespace tensorctl
}  // namespace tensord

#endif  // TENSORD_CLIENTS_TENSORCTL_BENCH_REPORT_H_
