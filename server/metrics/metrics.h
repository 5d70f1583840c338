// A small registry of labelled metric families (counters, gauges, histograms) and their
// Prometheus text exposition (format 0.0.4), written for tensord because prometheus-cpp is not
// available as a Debian package.
//
// A family has a name, a help text and a fixed list of label names; each distinct list of label
// values is one series, created on first use. Every call that takes label values must pass
// exactly as many values as the family has label names.
//
// Exposition (MetricRegistry::ExportPrometheus) follows TF Serving's layout so that dashboards
// built on TF Serving keep working, plus `# HELP` lines:
//   # HELP <name> <help>
//   # TYPE <name> counter|gauge|histogram
//   <name>{<label>="<value>",...} <value>        one line per series, sorted by label values
// * A family without labels prints `<name> <value>` (TF prints `<name>{}`; both parse alike).
// * Counters print integers; gauges and histogram sums print the shortest decimal form that
//   reads back as the same double (`3`, not `3.000000`), NaN/+Inf/-Inf as Prometheus spells them.
// * Histograms print, per series, one `<name>_bucket{...,le="<limit>"} <cumulative count>` line
//   per limit, then `le="+Inf"`, `<name>_sum` and `<name>_count`. Limits print like `%g` (6
//   significant digits, as TF: `10`, `18`, `32.4`, `104.976`, `1.47476e+09`), except limits that
//   are whole numbers, which print all their digits (`1073741824`, not `1.07374e+09`).
// * Label values escape `\`, `"` and newline; bytes that are not valid UTF-8 are replaced by
//   U+FFFD, because a single invalid label value makes Prometheus reject the whole scrape.
// * A family with no series yet prints only its HELP and TYPE lines.
//
// Bucket semantics: a bucket counts values <= its limit (Prometheus' `le`), for every family,
// including the `:tensorflow:` ones. TF Serving's buckets are half-open [lo, hi), so a value
// exactly equal to a limit lands one bucket higher there than here; we follow what the `le`
// label states, so that histogram_quantile() and bucket reads are right. (The two differ only
// for values exactly equal to a limit.) NaN is counted in the +Inf bucket.
//
// Registration errors (an invalid metric or label name, a re-registration whose type, labels or
// buckets differ) print a message and abort: registration happens once at startup with names
// fixed in the code. Recording errors (a wrong number of label values, a negative counter
// increment) happen on request paths, so they never abort: the sample is dropped and the first
// such error of a family is reported on stderr.
//
// Thread safety: everything is thread-safe. Each family has its own mutex; recording into an
// existing series takes that mutex and does not allocate.
//
// Ownership: families are owned by the registry that created them and live as long as it;
// MetricRegistry::Global() is never destroyed, so its families may be used from any thread at
// any time, including during static destruction.
#ifndef TENSORD_SERVER_METRICS_METRICS_H_
#define TENSORD_SERVER_METRICS_METRICS_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

namespace tensord {

// Limits scale * growth^i for i = 0 .. count-1 (TF's exp(scale, growth, count)); +Inf is
// implicit. Requires scale > 0, growth > 1, count >= 1.
std::vector<double> ExponentialBuckets(double scale, double growth, int count);

class MetricRegistry;

namespace metrics_internal {

// What the three family types share: identity, the label-count check and the exposition of the
// HELP/TYPE header. Families are made only by MetricRegistry.
class Family {
 public:
  virtual ~Family() = default;
  Family(const Family&) = delete;
  Family& operator=(const Family&) = delete;

  const std::string& name() const { return name_; }
  const std::string& help() const { return help_; }
  const std::vector<std::string>& label_names() const { return label_names_; }
  // "counter", "gauge" or "histogram", as in the TYPE line.
  virtual const char* type() const = 0;
  // The sample names this family prints (`name`, or `name_bucket`, `name_sum`, `name_count`);
  // two families may not share one.
  virtual std::vector<std::string> SampleNames() const;
  // Appends HELP, TYPE and every series.
  void AppendPrometheus(std::string* out) const;
  // Drops every series whose labels have all the values in `match` ({label name, value} pairs),
  // e.g. every series of one model version; a family lacking one of those labels is unchanged.
  void RemoveMatching(const std::vector<std::pair<std::string, std::string>>& match);

 protected:
  Family(std::string name, std::string help, std::vector<std::string> label_names);
  // Whether label_values has one value per label name; reports the first misuse of the family
  // on stderr. Recording never aborts: a bad sample is dropped.
  bool Usable(const std::vector<std::string>& label_values) const;
  void ReportMisuse(absl::string_view what) const;
  // Appends `{name="value",...}` for label_values, plus `le="<le>"` when le is not null; appends
  // nothing when there are no labels at all.
  void AppendLabels(const std::vector<std::string>& label_values, const char* le,
                    std::string* out) const;

  using SeriesFilter = std::function<bool(const std::vector<std::string>& label_values)>;

 private:
  virtual void AppendSeries(std::string* out) const = 0;
  // Erases the series `drop` is true for.
  virtual void EraseSeries(const SeriesFilter& drop) = 0;

  const std::string name_;
  const std::string help_;
  const std::vector<std::string> label_names_;
  mutable std::atomic<bool> misuse_reported_{false};
};

}  // namespace metrics_internal

// A monotonically increasing int64 per series.
class Counter final : public metrics_internal::Family {
 public:
  // delta must be >= 0.
  void Increment(const std::vector<std::string>& label_values, int64_t delta = 1);
  // 0 if the series was never incremented.
  int64_t Value(const std::vector<std::string>& label_values) const;

  const char* type() const override { return "counter"; }

 private:
  friend class MetricRegistry;
  using Family::Family;
  void AppendSeries(std::string* out) const override;
  void EraseSeries(const SeriesFilter& drop) override;

  mutable std::mutex mu_;
  std::map<std::vector<std::string>, int64_t> series_;  // guarded by mu_
};

// A double per series that can go up and down.
class Gauge final : public metrics_internal::Family {
 public:
  void Set(const std::vector<std::string>& label_values, double value);
  // A series that does not exist yet starts at 0.
  void Add(const std::vector<std::string>& label_values, double delta);
  // 0 if the series does not exist.
  double Value(const std::vector<std::string>& label_values) const;
  // Drops one series (e.g. a version that was unloaded); no-op if it does not exist.
  void Remove(const std::vector<std::string>& label_values);

  const char* type() const override { return "gauge"; }

 private:
  friend class MetricRegistry;
  using Family::Family;
  void AppendSeries(std::string* out) const override;
  void EraseSeries(const SeriesFilter& drop) override;

  mutable std::mutex mu_;
  std::map<std::vector<std::string>, double> series_;  // guarded by mu_
};

// Per series: a count per bucket (value <= limit, see the file comment), their sum and count.
class Histogram final : public metrics_internal::Family {
 public:
  void Observe(const std::vector<std::string>& label_values, double value);
  // Number of observations and their sum in one series; 0 if it does not exist.
  int64_t Count(const std::vector<std::string>& label_values) const;
  double Sum(const std::vector<std::string>& label_values) const;

  // Finite and strictly increasing; +Inf is implicit.
  const std::vector<double>& bucket_limits() const { return bucket_limits_; }
  const char* type() const override { return "histogram"; }
  std::vector<std::string> SampleNames() const override;

 private:
  friend class MetricRegistry;
  struct Series {
    explicit Series(size_t buckets) : bucket_counts(buckets) {}
    std::vector<int64_t> bucket_counts;  // not cumulative; the last one is +Inf
    double sum = 0;
    int64_t count = 0;
  };

  Histogram(std::string name, std::string help, std::vector<std::string> label_names,
            std::vector<double> bucket_limits);
  void AppendSeries(std::string* out) const override;
  void EraseSeries(const SeriesFilter& drop) override;

  const std::vector<double> bucket_limits_;
  const std::vector<std::string> le_strings_;  // bucket_limits_ as printed in `le`
  mutable std::mutex mu_;
  std::map<std::vector<std::string>, Series> series_;  // guarded by mu_
};

class MetricRegistry {
 public:
  // Process-wide; never destroyed.
  static MetricRegistry& Global();
  // Tests make their own.
  MetricRegistry();
  ~MetricRegistry();
  MetricRegistry(const MetricRegistry&) = delete;
  MetricRegistry& operator=(const MetricRegistry&) = delete;

  // Registering a name again returns the existing family when type, label names and (for
  // histograms) bucket limits match; the help text of the first registration is kept. A
  // mismatch, an invalid name, or a name whose samples collide with another family's (a counter
  // `x_count` next to a histogram `x`) aborts.
  // Metric names match [a-zA-Z_:][a-zA-Z0-9_:]*; label names match [a-zA-Z_][a-zA-Z0-9_]*, do
  // not start with `__`, are distinct, and histograms may not use `le`.
  Counter* AddCounter(const std::string& name, const std::string& help,
                      std::vector<std::string> label_names);
  Gauge* AddGauge(const std::string& name, const std::string& help,
                  std::vector<std::string> label_names);
  Histogram* AddHistogram(const std::string& name, const std::string& help,
                          std::vector<std::string> label_names, std::vector<double> bucket_limits);

  // Prometheus text exposition format 0.0.4 of every family, in registration order.
  std::string ExportPrometheus() const;

 private:
  // The family registered under f's name if it has the same shape as f (else aborts), or f
  // itself, now registered.
  metrics_internal::Family* Register(std::unique_ptr<metrics_internal::Family> f);

  mutable std::mutex mu_;
  std::vector<std::unique_ptr<metrics_internal::Family>> families_;  // guarded by mu_
};

}  // namespace tensord

#endif  // TENSORD_SERVER_METRICS_METRICS_H_
