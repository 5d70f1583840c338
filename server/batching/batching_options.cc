#include "server/batching/batching_options.h"

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "google/protobuf/text_format.h"

namespace tensord {

absl::StatusOr<BatchingOptions> BatchingOptionsFromProto(
    const ::tensorflow::serving::BatchingParameters& params) {
  BatchingOptions options;
  if (params.has_max_batch_size()) options.max_batch_size = params.max_batch_size().value();
  if (params.has_batch_timeout_micros()) {
    options.batch_timeout = absl::Microseconds(params.batch_timeout_micros().value());
  }
  if (params.has_max_enqueued_batches()) {
    options.max_enqueued_batches = params.max_enqueued_batches().value();
  }
  if (params.has_num_batch_threads()) {
    options.num_batch_threads = static_cast<int>(params.num_batch_threads().value());
  }
  options.allowed_batch_sizes.assign(params.allowed_batch_sizes().begin(),
                                     params.allowed_batch_sizes().end());
  options.pad_variable_length_inputs = params.pad_variable_length_inputs();
  options.enable_large_batch_splitting =
      params.has_enable_large_batch_splitting() && params.enable_large_batch_splitting().value();
  options.max_execution_batch_size = params.has_max_execution_batch_size()
                                         ? params.max_execution_batch_size().value()
                                         : options.max_batch_size;

  if (options.max_batch_size <= 0) {
    return absl::InvalidArgumentError("max_batch_size must be positive");
  }
  if (options.batch_timeout < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("batch_timeout_micros must be non-negative");
  }
  if (options.max_enqueued_batches <= 0) {
    return absl::InvalidArgumentError("max_enqueued_batches must be positive");
  }
  if (options.num_batch_threads < 0) {
    return absl::InvalidArgumentError("num_batch_threads must be positive");
  }
  const auto& sizes = options.allowed_batch_sizes;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] <= 0) return absl::InvalidArgumentError("allowed_batch_sizes must be positive");
    if (i > 0 && sizes[i] <= sizes[i - 1]) {
      return absl::InvalidArgumentError("allowed_batch_sizes entries must be monotonically increasing");
    }
  }
  if (options.enable_large_batch_splitting) {
    if (options.max_execution_batch_size <= 0 ||
        options.max_execution_batch_size > options.max_batch_size) {
      return absl::InvalidArgumentError(
          "max_execution_batch_size must be positive and at most max_batch_size");
    }
    if (!sizes.empty() && sizes.back() != options.max_execution_batch_size) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Last entry in allowed_batch_sizes must match max_execution_batch_size; last entry was ",
          sizes.back(), "; expected ", options.max_execution_batch_size));
    }
  } else {
    options.max_execution_batch_size = options.max_batch_size;
    if (!sizes.empty() && sizes.back() != options.max_batch_size) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Last entry in allowed_batch_sizes must match max_batch_size; last entry was ",
          sizes.back(), "; expected ", options.max_batch_size));
    }
  }
  return options;
}

absl::StatusOr<BatchingOptions> ReadBatchingParametersFile(const std::string& path) {
  auto fail = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid batching parameters file ", path, ": ", why));
  };
  std::ifstream in(path);
  if (!in) return fail("cannot open the file");
  std::stringstream text;
  text << in.rdbuf();
  ::tensorflow::serving::BatchingParameters params;
  if (!google::protobuf::TextFormat::ParseFromString(text.str(), &params)) {
    return fail("not a text-format BatchingParameters");
  }
  auto options = BatchingOptionsFromProto(params);
  if (!options.ok()) return fail(options.status().message());
  return options;
}

int64_t PaddedBatchSize(const BatchingOptions& options, int64_t rows) {
  for (int64_t size : options.allowed_batch_sizes) {
    if (size >= rows) return size;
  }
  return rows;
}

}  // namespace tensord
