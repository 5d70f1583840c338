#include "clients/common/prometheus_text.h"

#include <cctype>
#include <cmath>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace tensord {
namespace prometheus {
namespace {

bool IsNameStart(char c, bool colon_ok) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || (colon_ok && c == ':');
}

bool IsNameChar(char c, bool colon_ok) {
  return IsNameStart(c, colon_ok) || std::isdigit(static_cast<unsigned char>(c));
}

// Reads one line's tokens left to right; each method consumes what it parsed.
class LineReader {
 public:
  explicit LineReader(absl::string_view line) : rest_(line) {}

  void SkipBlanks() {
    while (!rest_.empty() && (rest_[0] == ' ' || rest_[0] == '\t')) rest_.remove_prefix(1);
  }
  bool AtEnd() const { return rest_.empty(); }
  bool Consume(char c) {
    if (rest_.empty() || rest_[0] != c) return false;
    rest_.remove_prefix(1);
    return true;
  }

  // A metric name (colons allowed) or a label name (not); empty when none starts here.
  absl::string_view Name(bool colon_ok) {
    if (rest_.empty() || !IsNameStart(rest_[0], colon_ok)) return {};
    size_t n = 1;
    while (n < rest_.size() && IsNameChar(rest_[n], colon_ok)) ++n;
    absl::string_view name = rest_.substr(0, n);
    rest_.remove_prefix(n);
    return name;
  }

  // The body of a double-quoted label value after its opening quote, unescaped.
  absl::StatusOr<std::string> QuotedRest() {
    std::string value;
    while (!rest_.empty()) {
      char c = rest_[0];
      rest_.remove_prefix(1);
      if (c == '"') return value;
      if (c != '\\') {
        value.push_back(c);
        continue;
      }
      if (rest_.empty()) break;
      char escaped = rest_[0];
      rest_.remove_prefix(1);
      if (escaped == 'n') {
        value.push_back('\n');
      } else if (escaped == '\\' || escaped == '"') {
        value.push_back(escaped);
      } else {
        return absl::InvalidArgumentError(
            absl::StrCat("unknown escape \\", std::string(1, escaped), " in a label value"));
      }
    }
    return absl::InvalidArgumentError("unterminated label value");
  }

  // Characters up to the next blank.
  absl::string_view Token() {
    size_t n = 0;
    while (n < rest_.size() && rest_[n] != ' ' && rest_[n] != '\t') ++n;
    absl::string_view token = rest_.substr(0, n);
    rest_.remove_prefix(n);
    return token;
  }

 private:
  absl::string_view rest_;
};

std::optional<double> ParseValue(absl::string_view text) {
  if (text == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (text == "+Inf") return std::numeric_limits<double>::infinity();
  if (text == "-Inf") return -std::numeric_limits<double>::infinity();
  double value;
  if (text.empty() || !absl::SimpleAtod(text, &value) || std::isnan(value) ||
      std::isinf(value)) {
    // SimpleAtod also takes "nan" and "inf" spellings the format does not have.
    return std::nullopt;
  }
  return value;
}

absl::StatusOr<Sample> ParseSample(absl::string_view line) {
  LineReader reader(line);
  Sample sample;
  sample.name = std::string(reader.Name(/*colon_ok=*/true));
  if (sample.name.empty()) return absl::InvalidArgumentError("expected a metric name");
  reader.SkipBlanks();
  if (reader.Consume('{')) {
    while (true) {
      reader.SkipBlanks();
      if (reader.Consume('}')) break;
      std::string label(reader.Name(/*colon_ok=*/false));
      if (label.empty()) return absl::InvalidArgumentError("expected a label name or '}'");
      reader.SkipBlanks();
      if (!reader.Consume('=')) {
        return absl::InvalidArgumentError(absl::StrCat("expected '=' after label ", label));
      }
      reader.SkipBlanks();
      if (!reader.Consume('"')) {
        return absl::InvalidArgumentError(
            absl::StrCat("expected a quoted value for label ", label));
      }
      absl::StatusOr<std::string> value = reader.QuotedRest();
      if (!value.ok()) return value.status();
      if (!sample.labels.emplace(label, *std::move(value)).second) {
        return absl::InvalidArgumentError(absl::StrCat("label ", label, " is repeated"));
      }
      reader.SkipBlanks();
      if (reader.Consume('}')) break;
      if (!reader.Consume(',')) {
        return absl::InvalidArgumentError("expected ',' or '}' after a label value");
      }
    }
  }
  reader.SkipBlanks();
  absl::string_view value_text = reader.Token();
  std::optional<double> value = ParseValue(value_text);
  if (!value) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", value_text, "' is not a sample value"));
  }
  sample.value = *value;
  reader.SkipBlanks();
  if (!reader.AtEnd()) {
    absl::string_view timestamp = reader.Token();
    int64_t unused;
    if (!absl::SimpleAtoi(timestamp, &unused)) {
      return absl::InvalidArgumentError(absl::StrCat("'", timestamp, "' is not a timestamp"));
    }
    reader.SkipBlanks();
    if (!reader.AtEnd()) return absl::InvalidArgumentError("unexpected text after the timestamp");
  }
  return sample;
}

}  // namespace

absl::StatusOr<std::vector<Sample>> ParseText(absl::string_view text) {
  std::vector<Sample> samples;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    size_t start = line.find_first_not_of(" \t");
    if (start == absl::string_view::npos || line[start] == '#') continue;
    absl::StatusOr<Sample> sample = ParseSample(line.substr(start));
    if (!sample.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "line ", line_number, " of the metrics text: ", sample.status().message()));
    }
    samples.push_back(*std::move(sample));
  }
  return samples;
}

std::optional<double> SumMatching(const std::vector<Sample>& samples, absl::string_view name,
                                  const std::map<std::string, std::string>& match) {
  std::optional<double> sum;
  for (const Sample& sample : samples) {
    if (sample.name != name) continue;
    bool matches = true;
    for (const auto& [label, value] : match) {
      auto it = sample.labels.find(label);
      if (it == sample.labels.end() || it->second != value) {
        matches = false;
        break;
      }
    }
    if (matches) sum = sum.value_or(0) + sample.value;
  }
  return sum;
}

}  // namespace prometheus
}  // namespace tensord
