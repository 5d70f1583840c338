#include "clients/tensorctl/bench_stats.h"

#include <algorithm>
#include <cmath>

namespace tensord {
namespace tensorctl {
namespace {

double NsToMs(double ns) { return ns / 1e6; }

}  // namespace

int64_t Window::error_count() const {
  int64_t n = 0;
  for (const auto& [code, count] : errors) n += count;
  return n;
}

double Window::throughput() const {
  return duration_s > 0 ? static_cast<double>(successes()) / duration_s : 0;
}

int64_t Percentile(const std::vector<int64_t>& sorted, double p) {
  const double n = static_cast<double>(sorted.size());
  // p / 100 * n in floating point can land just above the exact rank (7 / 100 * 100 is
  // 7.000000000000001, whose ceil is 8), so the product is rounded to 1e-9 first.
  double rank = std::ceil(std::round(p / 100 * n * 1e9) / 1e9);
  size_t index = rank < 1 ? 0 : static_cast<size_t>(rank) - 1;
  return sorted[std::min(index, sorted.size() - 1)];
}

LatencySummary Summarize(std::vector<int64_t> latencies_ns) {
  LatencySummary summary;
  if (latencies_ns.empty()) return summary;
  std::sort(latencies_ns.begin(), latencies_ns.end());
  double total = 0;
  for (int64_t ns : latencies_ns) total += static_cast<double>(ns);
  summary.count = static_cast<int64_t>(latencies_ns.size());
  summary.avg_ms = NsToMs(total / static_cast<double>(summary.count));
  summary.p50_ms = NsToMs(Percentile(latencies_ns, 50));
  summary.p90_ms = NsToMs(Percentile(latencies_ns, 90));
  summary.p95_ms = NsToMs(Percentile(latencies_ns, 95));
  summary.p99_ms = NsToMs(Percentile(latencies_ns, 99));
  summary.max_ms = NsToMs(latencies_ns.back());
  return summary;
}

bool IsStable(const std::vector<Window>& windows, double percentage) {
  if (windows.size() < 2) return false;
  const size_t empty = std::count_if(windows.begin(), windows.end(),
                                     [](const Window& w) { return w.successes() == 0; });
  if (empty > 0) return empty == windows.size();
  const double limit = 1 + percentage / 100;
  auto within = [limit](const std::vector<double>& values) {
    auto [min, max] = std::minmax_element(values.begin(), values.end());
    return *max <= *min * limit;
  };
  std::vector<double> throughputs, p99s;
  for (const Window& w : windows) {
    throughputs.push_back(w.throughput());
    std::vector<int64_t> sorted = w.latencies_ns;
    std::sort(sorted.begin(), sorted.end());
    p99s.push_back(static_cast<double>(Percentile(sorted, 99)));
  }
  return within(throughputs) && within(p99s);
}

Window Merge(const std::vector<Window>& windows) {
  Window merged;
  for (const Window& w : windows) {
    merged.duration_s += w.duration_s;
    merged.latencies_ns.insert(merged.latencies_ns.end(), w.latencies_ns.begin(),
                               w.latencies_ns.end());
    for (const auto& [code, count] : w.errors) merged.errors[code] += count;
    merged.delayed += w.delayed;
  }
  return merged;
}

}  // namespace tensorctl
}  // namespace tensord
