#include "server/metrics/metrics.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"

namespace tensord {
namespace {

// Registration errors only: families are registered once at startup with names fixed in the
// code (ServingMetrics), never from request, model or config data, so a bad one is a bug that
// must not ship. Recording errors drop the sample instead (Family::Usable).
[[noreturn]] void Fatal(absl::string_view message) {
  std::fprintf(stderr, "tensord metrics: %.*s\n", static_cast<int>(message.size()), message.data());
  std::abort();
}

bool IsAsciiLetterOrUnderscore(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }

bool IsValidMetricName(absl::string_view name) {
  if (name.empty() || IsAsciiDigit(name[0])) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return IsAsciiLetterOrUnderscore(c) || IsAsciiDigit(c) || c == ':';
  });
}

bool IsValidLabelName(absl::string_view name) {
  if (name.empty() || IsAsciiDigit(name[0]) || absl::StartsWith(name, "__")) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return IsAsciiLetterOrUnderscore(c) || IsAsciiDigit(c); });
}

void ValidateNames(const std::string& name, const std::vector<std::string>& label_names) {
  if (!IsValidMetricName(name)) Fatal(absl::StrCat("invalid metric name \"", name, "\""));
  for (size_t i = 0; i < label_names.size(); ++i) {
    if (!IsValidLabelName(label_names[i])) {
      Fatal(absl::StrCat(name, ": invalid label name \"", label_names[i], "\""));
    }
    for (size_t j = 0; j < i; ++j) {
      if (label_names[j] == label_names[i]) {
        Fatal(absl::StrCat(name, ": duplicate label name \"", label_names[i], "\""));
      }
    }
  }
}

// Length of the valid UTF-8 sequence at s[i], or 0 if the bytes there are not one (overlong
// forms, surrogates and code points above U+10FFFF included).
size_t Utf8SequenceLength(absl::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b0 = byte(i);
  size_t n;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (b0 < 0x80) return 1;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    n = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n = 3;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n = 4;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return n;
}

void AppendEscapedLabelValue(absl::string_view value, std::string* out) {
  for (size_t i = 0; i < value.size();) {
    const char c = value[i];
    if (c == '\\') {
      out->append("\\\\");
    } else if (c == '"') {
      out->append("\\\"");
    } else if (c == '\n') {
      out->append("\\n");
    } else {
      const size_t n = Utf8SequenceLength(value, i);
      if (n == 0) {
        out->append("\xEF\xBF\xBD");  // U+FFFD REPLACEMENT CHARACTER, for one invalid byte
        ++i;
      } else {
        out->append(value.data() + i, n);
        i += n;
      }
      continue;
    }
    ++i;
  }
}

void AppendEscapedHelp(absl::string_view help, std::string* out) {
  for (char c : help) {
    if (c == '\\') {
      out->append("\\\\");
    } else if (c == '\n') {
      out->append("\\n");
    } else {
      out->push_back(c);
    }
  }
}

// Shortest decimal form that parses back to the same double; Prometheus spellings for NaN and
// infinities.
void AppendDouble(double value, std::string* out) {
  if (std::isnan(value)) {
    out->append("NaN");
  } else if (std::isinf(value)) {
    out->append(value > 0 ? "+Inf" : "-Inf");
  } else {
    char buffer[32];
    const std::to_chars_result result = std::to_chars(buffer, buffer + sizeof(buffer), value);
    out->append(buffer, result.ptr);
  }
}

// TF's `le` form (%g, 6 significant digits), but whole numbers in full: a byte limit of
// 1073741824 should not read back as 1.07374e+09.
std::string FormatLe(double limit) {
  if (limit == std::floor(limit) && std::fabs(limit) < 9007199254740992.0 /* 2^53 */) {
    return absl::StrCat(static_cast<int64_t>(limit));
  }
  return absl::StrFormat("%g", limit);
}

std::vector<std::string> FormatLimits(const std::vector<double>& limits) {
  std::vector<std::string> formatted;
  formatted.reserve(limits.size());
  for (double limit : limits) formatted.push_back(FormatLe(limit));
  return formatted;
}

}  // namespace

std::vector<double> ExponentialBuckets(double scale, double growth, int count) {
  if (!(scale > 0) || !(growth > 1) || count < 1) {
    Fatal(absl::StrCat("ExponentialBuckets(", scale, ", ", growth, ", ", count,
                       "): need scale > 0, growth > 1, count >= 1"));
  }
  std::vector<double> limits;
  limits.reserve(count);
  for (int i = 0; i < count; ++i) limits.push_back(scale * std::pow(growth, i));
  return limits;
}

namespace metrics_internal {

Family::Family(std::string name, std::string help, std::vector<std::string> label_names)
    : name_(std::move(name)), help_(std::move(help)), label_names_(std::move(label_names)) {}

std::vector<std::string> Family::SampleNames() const { return {name_}; }

void Family::AppendPrometheus(std::string* out) const {
  absl::StrAppend(out, "# HELP ", name_, " ");
  AppendEscapedHelp(help_, out);
  absl::StrAppend(out, "\n# TYPE ", name_, " ", type(), "\n");
  AppendSeries(out);
}

void Family::RemoveMatching(const std::vector<std::pair<std::string, std::string>>& match) {
  std::vector<std::pair<size_t, std::string>> wanted;  // {label index, value}
  for (const auto& [label, value] : match) {
    auto it = std::find(label_names_.begin(), label_names_.end(), label);
    if (it == label_names_.end()) return;
    wanted.emplace_back(static_cast<size_t>(it - label_names_.begin()), value);
  }
  EraseSeries([&wanted](const std::vector<std::string>& label_values) {
    for (const auto& [index, value] : wanted) {
      if (label_values[index] != value) return false;
    }
    return true;
  });
}

bool Family::Usable(const std::vector<std::string>& label_values) const {
  if (label_values.size() == label_names_.size()) return true;
  ReportMisuse(absl::StrCat(label_values.size(), " label values for ", label_names_.size(),
                            " labels (", absl::StrJoin(label_names_, ","), ")"));
  return false;
}

void Family::ReportMisuse(absl::string_view what) const {
  // Once per family: the same bug would otherwise print on every request.
  if (misuse_reported_.exchange(true)) return;
  std::fprintf(stderr, "tensord metrics: %s: %.*s; such samples are dropped\n", name_.c_str(),
               static_cast<int>(what.size()), what.data());
}

void Family::AppendLabels(const std::vector<std::string>& label_values, const char* le,
                          std::string* out) const {
  if (label_names_.empty() && le == nullptr) return;
  out->push_back('{');
  for (size_t i = 0; i < label_names_.size(); ++i) {
    if (i > 0) out->push_back(',');
    absl::StrAppend(out, label_names_[i], "=\"");
    AppendEscapedLabelValue(label_values[i], out);
    out->push_back('"');
  }
  if (le != nullptr) {
    if (!label_names_.empty()) out->push_back(',');
    absl::StrAppend(out, "le=\"", le, "\"");
  }
  out->push_back('}');
}

}  // namespace metrics_internal

void Counter::Increment(const std::vector<std::string>& label_values, int64_t delta) {
  if (!Usable(label_values)) return;
  if (delta < 0) {
    ReportMisuse(absl::StrCat("negative counter increment ", delta));
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  series_.try_emplace(label_values, 0).first->second += delta;
}

int64_t Counter::Value(const std::vector<std::string>& label_values) const {
  if (!Usable(label_values)) return 0;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = series_.find(label_values);
  return it == series_.end() ? 0 : it->second;
}

void Counter::AppendSeries(std::string* out) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [label_values, value] : series_) {
    out->append(name());
    AppendLabels(label_values, nullptr, out);
    absl::StrAppend(out, " ", value, "\n");
  }
}

void Gauge::Set(const std::vector<std::string>& label_values, double value) {
  if (!Usable(label_values)) return;
  std::lock_guard<std::mutex> lock(mu_);
  series_.insert_or_assign(label_values, value);
}

void Gauge::Add(const std::vector<std::string>& label_values, double delta) {
  if (!Usable(label_values)) return;
  std::lock_guard<std::mutex> lock(mu_);
  series_.try_emplace(label_values, 0.0).first->second += delta;
}

double Gauge::Value(const std::vector<std::string>& label_values) const {
  if (!Usable(label_values)) return 0.0;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = series_.find(label_values);
  return it == series_.end() ? 0.0 : it->second;
}

template <typename Map, typename Filter>
void EraseIf(Map* series, const Filter& drop) {
  for (auto it = series->begin(); it != series->end();) {
    it = drop(it->first) ? series->erase(it) : std::next(it);
  }
}

void Counter::EraseSeries(const SeriesFilter& drop) {
  std::lock_guard<std::mutex> lock(mu_);
  EraseIf(&series_, drop);
}

void Gauge::EraseSeries(const SeriesFilter& drop) {
  std::lock_guard<std::mutex> lock(mu_);
  EraseIf(&series_, drop);
}

void Histogram::EraseSeries(const SeriesFilter& drop) {
  std::lock_guard<std::mutex> lock(mu_);
  EraseIf(&series_, drop);
}

void Gauge::Remove(const std::vector<std::string>& label_values) {
  if (!Usable(label_values)) return;
  std::lock_guard<std::mutex> lock(mu_);
  series_.erase(label_values);
}

void Gauge::AppendSeries(std::string* out) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [label_values, value] : series_) {
    out->append(name());
    AppendLabels(label_values, nullptr, out);
    out->push_back(' ');
    AppendDouble(value, out);
    out->push_back('\n');
  }
}

Histogram::Histogram(std::string name, std::string help, std::vector<std::string> label_names,
                     std::vector<double> bucket_limits)
    : Family(std::move(name), std::move(help), std::move(label_names)),
      bucket_limits_(std::move(bucket_limits)),
      le_strings_(FormatLimits(bucket_limits_)) {}

std::vector<std::string> Histogram::SampleNames() const {
  return {name() + "_bucket", name() + "_sum", name() + "_count"};
}

void Histogram::Observe(const std::vector<std::string>& label_values, double value) {
  if (!Usable(label_values)) return;
  // First limit >= value, i.e. value <= limit; past the end is the +Inf bucket, where NaN goes
  // too (it compares false with everything).
  const size_t bucket =
      std::isnan(value) ? bucket_limits_.size()
                        : std::lower_bound(bucket_limits_.begin(), bucket_limits_.end(), value) -
                              bucket_limits_.begin();
  std::lock_guard<std::mutex> lock(mu_);
  Series& series = series_.try_emplace(label_values, bucket_limits_.size() + 1).first->second;
  ++series.bucket_counts[bucket];
  series.sum += value;
  ++series.count;
}

int64_t Histogram::Count(const std::vector<std::string>& label_values) const {
  if (!Usable(label_values)) return 0;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = series_.find(label_values);
  return it == series_.end() ? 0 : it->second.count;
}

double Histogram::Sum(const std::vector<std::string>& label_values) const {
  if (!Usable(label_values)) return 0.0;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = series_.find(label_values);
  return it == series_.end() ? 0.0 : it->second.sum;
}

void Histogram::AppendSeries(std::string* out) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [label_values, series] : series_) {
    int64_t cumulative = 0;
    for (size_t i = 0; i <= bucket_limits_.size(); ++i) {
      cumulative += series.bucket_counts[i];
      absl::StrAppend(out, name(), "_bucket");
      AppendLabels(label_values, i < le_strings_.size() ? le_strings_[i].c_str() : "+Inf", out);
      absl::StrAppend(out, " ", cumulative, "\n");
    }
    absl::StrAppend(out, name(), "_sum");
    AppendLabels(label_values, nullptr, out);
    out->push_back(' ');
    AppendDouble(series.sum, out);
    absl::StrAppend(out, "\n", name(), "_count");
    AppendLabels(label_values, nullptr, out);
    absl::StrAppend(out, " ", series.count, "\n");
  }
}

MetricRegistry& MetricRegistry::Global() {
  static MetricRegistry* const registry = new MetricRegistry();
  return *registry;
}

MetricRegistry::MetricRegistry() = default;
MetricRegistry::~MetricRegistry() = default;

Counter* MetricRegistry::AddCounter(const std::string& name, const std::string& help,
                                    std::vector<std::string> label_names) {
  ValidateNames(name, label_names);
  return static_cast<Counter*>(
      Register(std::unique_ptr<Counter>(new Counter(name, help, std::move(label_names)))));
}

Gauge* MetricRegistry::AddGauge(const std::string& name, const std::string& help,
                                std::vector<std::string> label_names) {
  ValidateNames(name, label_names);
  return static_cast<Gauge*>(
      Register(std::unique_ptr<Gauge>(new Gauge(name, help, std::move(label_names)))));
}

Histogram* MetricRegistry::AddHistogram(const std::string& name, const std::string& help,
                                        std::vector<std::string> label_names,
                                        std::vector<double> bucket_limits) {
  ValidateNames(name, label_names);
  if (std::find(label_names.begin(), label_names.end(), "le") != label_names.end()) {
    Fatal(absl::StrCat(name, ": a histogram may not have a label named \"le\""));
  }
  for (size_t i = 0; i < bucket_limits.size(); ++i) {
    if (!std::isfinite(bucket_limits[i]) || (i > 0 && !(bucket_limits[i - 1] < bucket_limits[i]))) {
      Fatal(absl::StrCat(name, ": bucket limits must be finite and strictly increasing"));
    }
  }
  return static_cast<Histogram*>(Register(std::unique_ptr<Histogram>(
      new Histogram(name, help, std::move(label_names), std::move(bucket_limits)))));
}

metrics_internal::Family* MetricRegistry::Register(std::unique_ptr<metrics_internal::Family> f) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::vector<std::string> samples = f->SampleNames();
  for (const auto& existing : families_) {
    if (existing->name() == f->name()) {
      const auto* histogram = dynamic_cast<const Histogram*>(existing.get());
      const bool same_shape =
          absl::string_view(existing->type()) == f->type() &&
          existing->label_names() == f->label_names() &&
          (histogram == nullptr ||
           histogram->bucket_limits() == static_cast<const Histogram&>(*f).bucket_limits());
      if (!same_shape) {
        Fatal(absl::StrCat(f->name(), ": registered again with a different type, labels or ",
                           "buckets"));
      }
      return existing.get();
    }
    for (const std::string& sample : existing->SampleNames()) {
      if (std::find(samples.begin(), samples.end(), sample) != samples.end()) {
        Fatal(absl::StrCat(f->name(), ": sample name ", sample, " is also printed by ",
                           existing->name()));
      }
    }
  }
  families_.push_back(std::move(f));
  return families_.back().get();
}

std::string MetricRegistry::ExportPrometheus() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::string out;
  for (const auto& family : families_) family->AppendPrometheus(&out);
  return out;
}

}  // namespace tensord
