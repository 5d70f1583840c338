#include "clients/tensorctl/bench.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "clients/tensorctl/args.h"
#include "clients/tensorctl/bench_inputs.h"
#include "clients/tensorctl/bench_load.h"
#include "clients/tensorctl/bench_report.h"
#include "clients/tensorctl/bench_server_metrics.h"
#include "clients/tensorctl/remote.h"
#include "clients/tensorctl/run_io.h"
#include "protos/serving/predict.pb.h"
#include "runtime/framework/tensor_proto.h"

namespace tensord {
namespace tensorctl {
namespace {

namespace serving = ::tensorflow::serving;

// Open-loop levels where more sends than this left late get a warning: the rate was not met.
constexpr double kDelayedWarning = 0.1;

int Fail(std::ostream& err, const absl::Status& status) {
  err << "tensorctl: " << status.message() << "\n";
  return 1;
}

std::string LevelName(const LoadLevel& level) {
  return level.concurrency > 0 ? absl::StrCat("concurrency ", level.concurrency)
                               : absl::StrCat("request rate ", level.request_rate, "/s");
}

std::vector<LoadLevel> Levels(const BenchArgs& args) {
  std::vector<LoadLevel> levels;
  for (int n : args.concurrency) levels.push_back({n, 0});
  for (double rate : args.request_rates) levels.push_back({0, rate});
  return levels;
}

// The signature to build inputs for: the server's, or, from a server without GetModelMetadata
// (such as tests/bench/empty_predict_server), one made of the --input values.
absl::StatusOr<::tensorflow::SignatureDef> FindBenchSignature(
    const BenchArgs& args, const std::vector<ParsedInput>& given, std::ostream& err) {
  std::shared_ptr<grpc::Channel> channel =
      grpc::CreateChannel(args.target.server, grpc::InsecureChannelCredentials());
  absl::StatusOr<serving::SignatureDefMap> map = FetchSignatureDefMap(args.target, channel);
  if (map.ok()) {
    const std::map<std::string, ::tensorflow::SignatureDef> signatures(
        map->signature_def().begin(), map->signature_def().end());
    absl::StatusOr<const ::tensorflow::SignatureDef*> signature =
        FindSignature(signatures, args.target.signature_def);
    if (!signature.ok()) return signature.status();
    return **signature;
  }
  if (map.status().code() != absl::StatusCode::kUnimplemented) return map.status();
  if (given.empty()) {
    return absl::FailedPreconditionError(
        "the server does not implement GetModelMetadata, so bench cannot make up inputs; give "
        "every input with --input");
  }
  err << "tensorctl: note: the server has no GetModelMetadata; sending the --input values as "
         "given (JSON numbers as float)\n";
  return UntypedSignature(given);
}

absl::StatusOr<serving::PredictRequest> BuildRequest(const BenchArgs& args, std::ostream& err) {
  absl::StatusOr<std::vector<ParsedInput>> given = ReadInputs(args.target.inputs);
  if (!given.ok()) return given.status();
  absl::StatusOr<::tensorflow::SignatureDef> signature = FindBenchSignature(args, *given, err);
  if (!signature.ok()) return signature.status();
  absl::StatusOr<std::map<std::string, Tensor>> inputs =
      BenchInputs(args.target.signature_def, *signature, *given, {args.shapes, args.batch});
  if (!inputs.ok()) return inputs.status();

  serving::PredictRequest request;
  FillModelSpec(args.target, request.mutable_model_spec());
  request.mutable_model_spec()->set_signature_name(args.target.signature_def);
  std::vector<std::string> described;
  for (const auto& [alias, tensor] : *inputs) {
    TensorToProto(tensor, &(*request.mutable_inputs())[alias]);
    const bool from_flag = std::any_of(given->begin(), given->end(),
                                       [&](const ParsedInput& p) { return p.alias == alias; });
    described.push_back(absl::StrCat(alias, " ", DataTypeString(tensor.dtype()), " ",
                                     tensor.shape().DebugString(),
                                     from_flag ? " (--input)" : " (random)"));
  }
  for (const std::string& alias : args.target.output_filter) request.add_output_filter(alias);
  err << "tensorctl: benchmarking " << args.target.model << " (signature "
      << args.target.signature_def << ") at " << args.target.server
      << "; inputs: " << absl::StrJoin(described, ", ") << "\n";
  return request;
}

// Progress lines on stderr, and metrics scrapes at the start and after every window, so that
// the server-side breakdown covers exactly the reported windows.
class BenchObserver : public LevelObserver {
 public:
  BenchObserver(const BenchArgs& args, std::string level_name, std::ostream& err, bool tty)
      : args_(args), level_name_(std::move(level_name)), err_(err), tty_(tty) {}

  void MeasurementStarted() override { scrapes_.push_back(Scrape()); }

  void WindowMeasured(int trial, const Window& window) override {
    scrapes_.push_back(Scrape());
    const LatencySummary latency = Summarize(window.latencies_ns);
    Progress(absl::StrFormat("%s: window %d/%d: %.1f infer/s, p99 %.3f ms, %d errors",
                             level_name_, trial, args_.max_trials, window.throughput(),
                             latency.p99_ms, window.error_count()));
  }

  // Replaces the progress line on a terminal; one line each otherwise.
  void Progress(const std::string& line) {
    if (tty_) {
      err_ << "\r" << line << "\x1b[K" << std::flush;
      line_shown_ = true;
    } else {
      err_ << line << "\n";
    }
  }

  // Removes the progress line, for the table or a message to follow.
  void ClearProgress() {
    if (line_shown_) err_ << "\r\x1b[K" << std::flush;
    line_shown_ = false;
  }

  // The server side of `result`'s reported windows (the last ones), when --metrics_url is
  // given and the scrapes around them worked.
  std::optional<ServerBreakdown> ServerSide(const LevelResult& result) const {
    const int reported = std::min(3, result.trials);
    const size_t first = static_cast<size_t>(result.trials - reported);
    const size_t last = static_cast<size_t>(result.trials);
    if (last >= scrapes_.size() || !scrapes_[first] || !scrapes_[last]) return std::nullopt;
    return Breakdown(*scrapes_[first], *scrapes_[last]);
  }

 private:
  std::optional<ServerTimes> Scrape() {
    if (args_.metrics_url.empty()) return std::nullopt;
    absl::StatusOr<ServerTimes> times =
        ScrapeServerTimes(args_.metrics_url, args_.target.model, args_.target.timeout_ms);
    if (!times.ok()) {
      ClearProgress();
      err_ << "tensorctl: warning: " << times.status().message() << "\n";
      return std::nullopt;
    }
    return *times;
  }

  const BenchArgs& args_;
  const std::string level_name_;
  std::ostream& err_;
  const bool tty_;
  bool line_shown_ = false;
  // scrapes_[0] before the first window, scrapes_[k] after window k; nullopt: none or failed.
  std::vector<std::optional<ServerTimes>> scrapes_;
};

absl::Status WriteText(const std::string& path, const std::string& text) {
  std::ofstream file(path, std::ios::binary);
  file << text;
  file.close();
  if (!file) return absl::PermissionDeniedError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

}  // namespace

int RunBench(const BenchArgs& args, std::ostream& out, std::ostream& err, bool err_is_tty) {
  if (args.help) {
    out << kUsage;
    return 0;
  }
  absl::StatusOr<serving::PredictRequest> request = BuildRequest(args, err);
  if (!request.ok()) return Fail(err, request.status());
  if (!args.metrics_url.empty()) {
    // A wrong URL fails now rather than as a warning after the first level.
    absl::StatusOr<ServerTimes> probe =
        ScrapeServerTimes(args.metrics_url, args.target.model, args.target.timeout_ms);
    if (!probe.ok()) return Fail(err, probe.status());
  }

  std::vector<LevelReport> reports;
  absl::Status failure;
  for (const LoadLevel& level : Levels(args)) {
    const std::string name = LevelName(level);
    BenchObserver observer(args, name, err, err_is_tty);
    observer.Progress(absl::StrCat(name, ": warming up"));
    absl::StatusOr<LevelResult> result = RunLevel(args, level, *request, &observer);
    observer.ClearProgress();
    if (!result.ok()) {
      failure = absl::Status(result.status().code(),
                             absl::StrCat(name, ": ", result.status().message()));
      break;  // report the levels done so far
    }
    const Window& measured = result->measured;
    const int64_t sent = measured.successes() + measured.error_count();
    if (level.concurrency == 0 && measured.delayed > kDelayedWarning * sent) {
      err << "tensorctl: warning: " << name << ": " << measured.delayed << " of " << sent
          << " requests left late because all " << args.max_threads
          << " workers were busy; raise --max_threads to reach the rate\n";
    }
    const std::optional<ServerBreakdown> server = observer.ServerSide(*result);
    if (server && !server->request_ms) {
      err << "tensorctl: warning: " << args.metrics_url
          << " has no tensord_request_duration_seconds for model '" << args.target.model
          << "' (is the server tensord?)\n";
    }
    if (measured.successes() == 0 && failure.ok()) {
      failure = absl::UnavailableError(absl::StrCat(name, ": every request failed"));
    }
    reports.push_back({level, *std::move(result), server});
  }

  const ReportOptions options{args.batch, !args.metrics_url.empty()};
  if (!reports.empty()) out << ReportTable(reports, options);
  if (!args.csv_path.empty()) {
    if (absl::Status s = WriteText(args.csv_path, ReportCsv(reports, options)); !s.ok()) {
      return Fail(err, s);
    }
  }
  if (!args.json_path.empty()) {
    if (absl::Status s = WriteText(args.json_path, ReportJson(reports, options)); !s.ok()) {
      return Fail(err, s);
    }
  }
  if (!failure.ok()) return Fail(err, failure);
  return 0;
}

}  // namespace tensorctl
}  // namespace tensord
