#include "server/tfserving/warmup.h"

#include <algorithm>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "protos/serving/prediction_log.pb.h"
#include "runtime/saved_model/tfrecord_reader.h"
#include "server/logging/log.h"
#include "server/tfserving/handlers.h"

namespace tensord {

namespace serving = ::tensorflow::serving;

namespace {

absl::Status ReplayRecord(const ServableHandle& handle, const serving::PredictionLog& log) {
  switch (log.log_type_case()) {
    case serving::PredictionLog::kPredictLog: {
      serving::PredictResponse response;
      return PredictOn(handle, log.predict_log().request(), &response);
    }
    case serving::PredictionLog::kClassifyLog: {
      serving::ClassificationResponse response;
      return ClassifyOn(handle, log.classify_log().request(), &response);
    }
    case serving::PredictionLog::kRegressLog: {
      serving::RegressionResponse response;
      return RegressOn(handle, log.regress_log().request(), &response);
    }
    case serving::PredictionLog::kMultiInferenceLog: {
      serving::MultiInferenceResponse response;
      return MultiInferenceOn(handle, log.multi_inference_log().request(), &response);
    }
    default:
      return absl::UnimplementedError(
          "Unsupported log_type for warmup: only predict_log, classify_log, regress_log and "
          "multi_inference_log are replayed");
  }
}

// Reads and replays every record; `records` counts the records read.
absl::Status Replay(const ServableHandle& handle, const std::string& path, int iterations,
                    int64_t* records) {
  absl::StatusOr<TfRecordReader> reader = TfRecordReader::Open(path);
  if (!reader.ok()) return reader.status();
  std::string bytes;
  while (true) {
    absl::StatusOr<bool> more = reader->Next(&bytes);
    if (!more.ok()) {
      return absl::DataLossError(absl::StrCat(
          more.status().message(), ". Please verify your warmup data is in TFRecord format."));
    }
    if (!*more) return absl::OkStatus();
    if (++*records > kMaxWarmupRecords) {
      return absl::InvalidArgumentError(
          absl::StrCat("Number of warmup records exceeds the maximum (", kMaxWarmupRecords,
                       ") at ", path));
    }
    serving::PredictionLog log;
    if (!log.ParseFromString(bytes)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Failed to parse warmup record ", *records, " as PredictionLog from ", path));
    }
    for (int i = 0; i < iterations; ++i) {
      if (absl::Status s = ReplayRecord(handle, log); !s.ok()) {
        return absl::Status(s.code(), absl::StrCat("warmup record ", *records, " of ", path,
                                                   " failed: ", s.message()));
      }
    }
  }
}

}  // namespace

absl::Status ReplayWarmupRequests(const ServableHandle& handle, const WarmupOptions& options) {
  const std::string path =
      (std::filesystem::path(handle.bundle->export_dir()) / kWarmupFile).string();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return absl::OkStatus();
  const absl::Time start = absl::Now();
  int64_t records = 0;
  absl::Status status = Replay(handle, path, std::max(1, options.iterations), &records);
  const absl::Duration took = absl::Now() - start;
  if (options.metrics != nullptr) {
    const std::string code = absl::StatusCodeToString(status.code());
    options.metrics->model_warmup_latency->Observe({handle.bundle->export_dir(), code},
                                                   absl::ToDoubleMicroseconds(took));
    options.metrics->model_warmup_records_read->Increment({handle.bundle->export_dir(), code},
                                                          records);
  }
  if (status.ok()) {
    LogEvent(LogLevel::kInfo, "warmup done",
             {{"model", handle.name},
              {"version", absl::StrCat(handle.version)},
              {"records", absl::StrCat(records)},
              {"ms", absl::StrCat(absl::ToInt64Milliseconds(took))}});
  }
  return status;
}

}  // namespace tensord
