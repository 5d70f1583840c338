// The server-side breakdown of `tensorctl bench`: tensord's per-model histograms, scraped from
// its Prometheus endpoint before and after a load level, turned into time per request.
//
// The histograms (labels {model, version, signature, method[, protocol]}, summed over every
// series of the model):
//   tensord_request_duration_seconds      receiving a request to sending its response
//   tensord_runtime_duration_seconds      graph execution (compute)
//   tensord_batch_queue_duration_seconds  waiting in the batch queue; only with batching, and
//                                         absent (reported as such) without it
// Per request means each histogram's own _sum delta over its _count delta.
#ifndef TENSORD_CLIENTS_TENSORCTL_BENCH_SERVER_METRICS_H_
#define TENSORD_CLIENTS_TENSORCTL_BENCH_SERVER_METRICS_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tensord {
namespace tensorctl {

// One histogram's totals for the model at one scrape.
struct HistogramTotals {
  double sum_s = 0;
  double count = 0;
};

// A scrape: each histogram's totals, or nullopt when the server has no series of it for the
// model.
struct ServerTimes {
  std::optional<HistogramTotals> request;
  std::optional<HistogramTotals> runtime;
  std::optional<HistogramTotals> queue;
};

// What happened on the server between two scrapes. A time is nullopt when its histogram is
// absent from either scrape or saw no request in between.
struct ServerBreakdown {
  double requests = 0;  // tensord_request_duration_seconds' _count delta
  std::optional<double> request_ms;
  std::optional<double> compute_ms;
  std::optional<double> queue_ms;
};

// Reads the histograms of `model` from Prometheus text (clients/common/prometheus_text.h).
absl::StatusOr<ServerTimes> ServerTimesFromText(absl::string_view text, const std::string& model);

ServerBreakdown Breakdown(const ServerTimes& before, const ServerTimes& after);

// GETs `url` (http:// or https://; `timeout_ms` for connecting and for reading) and reads it
// with ServerTimesFromText. Errors are UNAVAILABLE for connection failures and non-200 replies,
// INVALID_ARGUMENT for a bad URL or body, each naming the URL. Thread-compatible: no state.
absl::StatusOr<ServerTimes> ScrapeServerTimes(const std::string& url, const std::string& model,
                                              int64_t timeout_ms);

}  // namespace tensorctl
}  // namespace tensord

#endif  // TENSORD_CLIENTS_TENSORCTL_BENCH_SERVER_METRICS_H_
