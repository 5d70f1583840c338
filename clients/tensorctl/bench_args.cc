#include "clients/tensorctl/bench_args.h"

#include <cmath>
#include <set>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace tensord {
namespace tensorctl {
namespace {

const std::set<std::string>& SharedFlags() {
  static const auto* flags = new std::set<std::string>{
      "server", "model", "version", "label", "signature_def", "input", "output_filter",
      "timeout_ms"};
  return *flags;
}

absl::Status Invalid(const std::string& name, const std::string& value, const char* what) {
  return absl::InvalidArgumentError(absl::StrCat("--", name, " '", value, "' ", what));
}

absl::StatusOr<int64_t> Integer(const std::string& name, const std::string& value,
                                int64_t min) {
  int64_t n;
  if (!absl::SimpleAtoi(value, &n) || n < min) {
    return Invalid(name, value,
                   min == 0 ? "is not a non-negative integer" : "is not a positive integer");
  }
  return n;
}

// "1,4,16" -> {1, 4, 16}; each element as Integer(min 1), in the order given.
absl::StatusOr<std::vector<int>> IntegerList(const std::string& name, const std::string& value) {
  std::vector<int> list;
  for (absl::string_view item : absl::StrSplit(value, ',')) {
    int n;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(item), &n) || n < 1) {
      return Invalid(name, value, "must be a comma-separated list of positive integers");
    }
    list.push_back(n);
  }
  return list;
}

absl::StatusOr<std::vector<double>> RateList(const std::string& name, const std::string& value) {
  std::vector<double> list;
  for (absl::string_view item : absl::StrSplit(value, ',')) {
    double r;
    if (!absl::SimpleAtod(absl::StripAsciiWhitespace(item), &r) || !std::isfinite(r) || r <= 0) {
      return Invalid(name, value, "must be positive request rates (per second), comma-separated");
    }
    list.push_back(r);
  }
  return list;
}

// --shape ALIAS=D0,D1,... (a scalar: ALIAS=).
absl::Status AddShape(const std::string& value, BenchArgs* args) {
  const size_t eq = value.find('=');
  if (eq == std::string::npos || eq == 0) {
    return Invalid("shape", value, "must be ALIAS=D0,D1,... (e.g. images=8,224,224,3)");
  }
  const std::string alias = value.substr(0, eq);
  std::vector<int64_t> dims;
  for (absl::string_view item : absl::StrSplit(value.substr(eq + 1), ',', absl::SkipEmpty())) {
    int64_t d;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(item), &d) || d < 0) {
      return Invalid("shape", value, "has a dimension that is not a non-negative integer");
    }
    dims.push_back(d);
  }
  if (!args->shapes.emplace(alias, std::move(dims)).second) {
    return absl::InvalidArgumentError(
        absl::StrCat("--shape for input '", alias, "' is given more than once"));
  }
  return absl::OkStatus();
}

// Stores one of bench's own flags; `name` is known to be one.
absl::Status SetBenchFlag(const std::string& name, const std::string& value, BenchArgs* args,
                          std::set<std::string>* seen_levels) {
  if (name == "concurrency" || name == "concurrency_range" || name == "request_rate") {
    if (!seen_levels->empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--", name, " and --", *seen_levels->begin(),
          " exclude each other (one load mode and one list of levels per run)"));
    }
    seen_levels->insert(name);
  }
  if (name == "concurrency") {
    absl::StatusOr<int64_t> n = Integer(name, value, 1);
    if (!n.ok()) return n.status();
    args->concurrency = {static_cast<int>(*n)};
  } else if (name == "concurrency_range") {
    absl::StatusOr<std::vector<int>> list = IntegerList(name, value);
    if (!list.ok()) return list.status();
    args->concurrency = *std::move(list);
  } else if (name == "request_rate") {
    absl::StatusOr<std::vector<double>> list = RateList(name, value);
    if (!list.ok()) return list.status();
    args->request_rates = *std::move(list);
  } else if (name == "request_distribution") {
    if (value == "constant") {
      args->distribution = BenchArgs::Distribution::kConstant;
    } else if (value == "poisson") {
      args->distribution = BenchArgs::Distribution::kPoisson;
    } else {
      return Invalid(name, value, "must be constant or poisson");
    }
  } else if (name == "max_threads") {
    absl::StatusOr<int64_t> n = Integer(name, value, 1);
    if (!n.ok()) return n.status();
    args->max_threads = static_cast<int>(*n);
  } else if (name == "shape") {
    return AddShape(value, args);
  } else if (name == "batch") {
    absl::StatusOr<int64_t> n = Integer(name, value, 1);
    if (!n.ok()) return n.status();
    args->batch = *n;
  } else if (name == "warmup_requests") {
    absl::StatusOr<int64_t> n = Integer(name, value, 0);
    if (!n.ok()) return n.status();
    args->warmup_requests = static_cast<int>(*n);
  } else if (name == "measurement_interval_ms") {
    absl::StatusOr<int64_t> n = Integer(name, value, 1);
    if (!n.ok()) return n.status();
    args->measurement_interval_ms = *n;
  } else if (name == "stability_percentage") {
    double p;
    if (!absl::SimpleAtod(value, &p) || !std::isfinite(p) || p < 0) {
      return Invalid(name, value, "is not a non-negative number");
    }
    args->stability_percentage = p;
  } else if (name == "max_trials") {
    absl::StatusOr<int64_t> n = Integer(name, value, 3);
    if (!n.ok()) {
      return Invalid(name, value, "must be an integer >= 3 (stability compares 3 windows)");
    }
    args->max_trials = static_cast<int>(*n);
  } else if (name == "metrics_url") {
    if (!absl::StartsWith(value, "http://") && !absl::StartsWith(value, "https://")) {
      return Invalid(name, value,
                     "must be an http:// or https:// URL "
                     "(e.g. http://localhost:8501/monitoring/prometheus/metrics)");
    }
    args->metrics_url = value;
  } else if (value.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("--", name, " is empty"));
  } else if (name == "csv") {
    args->csv_path = value;
  } else {  // json
    args->json_path = value;
  }
  return absl::OkStatus();
}

const std::set<std::string>& BenchFlags() {
  static const auto* flags = new std::set<std::string>{
      "concurrency", "concurrency_range", "request_rate", "request_distribution",
      "max_threads", "shape", "batch", "warmup_requests", "measurement_interval_ms",
      "stability_percentage", "max_trials", "metrics_url", "csv", "json"};
  return *flags;
}

}  // namespace

absl::StatusOr<BenchArgs> ParseBenchArgs(const std::vector<std::string>& argv) {
  BenchArgs args;
  std::set<std::string> seen_levels;
  bool open_loop_flag = false;
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      args.help = true;
      return args;
    }
    if (!absl::StartsWith(arg, "--")) {
      return absl::InvalidArgumentError(
          absl::StrCat("unexpected argument '", arg, "' for 'tensorctl bench' (flags only)"));
    }
    std::string name = arg.substr(2);
    std::optional<std::string> value;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    const bool shared = SharedFlags().count(name) > 0;
    if (!shared && BenchFlags().count(name) == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown flag --", name, " for 'tensorctl bench'"));
    }
    if (!value) {
      if (i + 1 >= argv.size()) {
        return absl::InvalidArgumentError(absl::StrCat("--", name, " needs a value"));
      }
      value = argv[++i];
    }
    open_loop_flag |= name == "request_distribution" || name == "max_threads";
    absl::Status status = shared ? SetServerFlag(name, *value, &args.target)
                                 : SetBenchFlag(name, *value, &args, &seen_levels);
    if (!status.ok()) return status;
  }

  if (args.target.server.empty()) {
    return absl::InvalidArgumentError("'tensorctl bench' needs --server HOST:PORT");
  }
  if (args.target.model.empty()) {
    return absl::InvalidArgumentError("'tensorctl bench' needs --model");
  }
  if (args.target.version && !args.target.version_label.empty()) {
    return absl::InvalidArgumentError("--version and --label exclude each other");
  }
  if (open_loop_flag && args.request_rates.empty()) {
    return absl::InvalidArgumentError(
        "--request_distribution and --max_threads apply to --request_rate only");
  }
  if (args.concurrency.empty() && args.request_rates.empty()) args.concurrency = {1};
  for (const InputSpec& input : args.target.inputs) {
    if (args.shapes.count(input.alias) > 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input '", input.alias, "' has both --input and --shape (--input fixes its shape)"));
    }
  }
  return args;
}

}  // namespace tensorctl
}  // namespace tensord
