// Reading Prometheus' text exposition format (version 0.0.4), as served on tensord's and TF
// Serving's monitoring endpoint, for clients that scrape metrics (tensorctl bench).
//
// One sample per line: `name{label="value",...} value [timestamp]`. The label set may be absent
// or empty (`name{}`), may end in a comma, and label values use the escapes \\, \" and \n.
// Values are floats in Go's syntax plus NaN, +Inf and -Inf. Lines starting with '#' (HELP,
// TYPE and other comments) and blank lines are skipped; types are not needed to read samples,
// because histograms and summaries already spell out their _sum, _count and _bucket series.
#ifndef TENSORD_CLIENTS_COMMON_PROMETHEUS_TEXT_H_
#define TENSORD_CLIENTS_COMMON_PROMETHEUS_TEXT_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tensord {
namespace prometheus {

struct Sample {
  std::string name;  // with its _sum / _count / _bucket suffix, as written
  std::map<std::string, std::string> labels;
  double value = 0;
};

// Every sample of `text` in order. A malformed sample line is an INVALID_ARGUMENT naming its
// line number; nothing is returned then, since a half-read scrape would give wrong sums.
absl::StatusOr<std::vector<Sample>> ParseText(absl::string_view text);

// The sum of the values of the samples called `name` whose labels include every pair of
// `match` (other labels may have any value); nullopt when no sample matches, which callers use
// to tell an absent metric from a zero one.
std::optional<double> SumMatching(const std::vector<Sample>& samples, absl::string_view name,
                                  const std::map<std::string, std::string>& match);

}  // namespace prometheus
}  // namespace tensord

#endif  // TENSORD_CLIENTS_COMMON_PROMETHEUS_TEXT_H_
