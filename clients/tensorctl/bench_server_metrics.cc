#include "clients/tensorctl/bench_server_metrics.h"

#include <chrono>
#include <vector>

#include <httplib.h>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "clients/common/prometheus_text.h"

namespace tensord {
namespace tensorctl {
namespace {

std::optional<HistogramTotals> Totals(const std::vector<prometheus::Sample>& samples,
                                      const std::string& family, const std::string& model) {
  const std::map<std::string, std::string> match = {{"model", model}};
  std::optional<double> sum = prometheus::SumMatching(samples, family + "_sum", match);
  std::optional<double> count = prometheus::SumMatching(samples, family + "_count", match);
  if (!sum || !count) return std::nullopt;
  return HistogramTotals{*sum, *count};
}

// Time per request between two scrapes of one histogram, in milliseconds.
std::optional<double> PerRequestMs(const std::optional<HistogramTotals>& before,
                                   const std::optional<HistogramTotals>& after) {
  if (!before || !after || after->count <= before->count) return std::nullopt;
  return (after->sum_s - before->sum_s) * 1000 / (after->count - before->count);
}

}  // namespace

absl::StatusOr<ServerTimes> ServerTimesFromText(absl::string_view text,
                                                const std::string& model) {
  absl::StatusOr<std::vector<prometheus::Sample>> samples = prometheus::ParseText(text);
  if (!samples.ok()) return samples.status();
  ServerTimes times;
  times.request = Totals(*samples, "tensord_request_duration_seconds", model);
  times.runtime = Totals(*samples, "tensord_runtime_duration_seconds", model);
  times.queue = Totals(*samples, "tensord_batch_queue_duration_seconds", model);
  return times;
}

ServerBreakdown Breakdown(const ServerTimes& before, const ServerTimes& after) {
  ServerBreakdown breakdown;
  if (before.request && after.request) {
    breakdown.requests = after.request->count - before.request->count;
  }
  breakdown.request_ms = PerRequestMs(before.request, after.request);
  breakdown.compute_ms = PerRequestMs(before.runtime, after.runtime);
  breakdown.queue_ms = PerRequestMs(before.queue, after.queue);
  return breakdown;
}

absl::StatusOr<ServerTimes> ScrapeServerTimes(const std::string& url, const std::string& model,
                                              int64_t timeout_ms) {
  // httplib::Client takes "scheme://host:port" and the request the path.
  const size_t scheme_end = url.find("://");
  const size_t path_start =
      scheme_end == std::string::npos ? std::string::npos : url.find('/', scheme_end + 3);
  if (scheme_end == std::string::npos ||
      !(absl::StartsWith(url, "http://") || absl::StartsWith(url, "https://"))) {
    return absl::InvalidArgumentError(absl::StrCat("metrics URL ", url, " is not http(s)://"));
  }
  const std::string origin = url.substr(0, path_start);
  const std::string path = path_start == std::string::npos ? "/" : url.substr(path_start);
  httplib::Client client(origin);
  if (!client.is_valid()) {
    return absl::InvalidArgumentError(absl::StrCat("metrics URL ", url, " is not valid"));
  }
  client.set_connection_timeout(std::chrono::milliseconds(timeout_ms));
  client.set_read_timeout(std::chrono::milliseconds(timeout_ms));
  httplib::Result reply = client.Get(path);
  if (!reply) {
    return absl::UnavailableError(absl::StrCat("scraping ", url, " failed: ",
                                               httplib::to_string(reply.error())));
  }
  if (reply->status != 200) {
    return absl::UnavailableError(
        absl::StrCat("scraping ", url, " failed: HTTP status ", reply->status));
  }
  absl::StatusOr<ServerTimes> times = ServerTimesFromText(reply->body, model);
  if (!times.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(url, ": ", times.status().message()));
  }
  return times;
}

}  // namespace tensorctl
}  // namespace tensord
