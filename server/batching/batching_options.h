// Batching settings: TF Serving's BatchingParameters (text format, --batching_parameters_file or
// a per-model <version dir>/batching_params.pbtxt) with TF Serving's defaults and validation,
// plus tensord's pad value for variable-length inputs.
#ifndef TENSORD_SERVER_BATCHING_BATCHING_OPTIONS_H_
#define TENSORD_SERVER_BATCHING_BATCHING_OPTIONS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "protos/serving/session_bundle_config.pb.h"

namespace tensord {

struct BatchingOptions {
  // Largest batch a queue forms (sum of the requests' dim 0).
  int64_t max_batch_size = 1000;
  // How long the oldest queued request waits for its batch to fill; 0 = run what is queued as
  // soon as a batch thread is free.
  absl::Duration batch_timeout = absl::ZeroDuration();
  // Queue bound, in batches of max_batch_size; beyond it requests get UNAVAILABLE.
  int64_t max_enqueued_batches = 10;
  // Threads of the one scheduler shared by all models; 0 = the available CPUs.
  int num_batch_threads = 0;
  // Sizes a batch is padded up to (strictly increasing); empty = no padding.
  std::vector<int64_t> allowed_batch_sizes;
  // Pad non-batch dimensions to the largest in the batch (else such requests are batched apart).
  bool pad_variable_length_inputs = false;
  // The value padded-in elements get (numbers; strings get ""). TF Serving copies each tensor's
  // first element, which silently changes results; 0 is explicit.
  double pad_value = 0;
  // Split requests larger than the space left (or than max_batch_size) across batches.
  bool enable_large_batch_splitting = false;
  // Largest batch executed; max_batch_size unless splitting sets it lower.
  int64_t max_execution_batch_size = 1000;
};

// Applies TF Serving's defaults for unset fields and its validation rules (INVALID_ARGUMENT
// with TF Serving's messages).
absl::StatusOr<BatchingOptions> BatchingOptionsFromProto(
    const ::tensorflow::serving::BatchingParameters& params);

// Reads a text-format BatchingParameters file; errors name the file.
absl::StatusOr<BatchingOptions> ReadBatchingParametersFile(const std::string& path);

// The executed size for a batch of `rows`: the smallest allowed size >= rows, or rows itself.
int64_t PaddedBatchSize(const BatchingOptions& options, int64_t rows);

}  // namespace tensord

#endif  // TENSORD_SERVER_BATCHING_BATCHING_OPTIONS_H_
