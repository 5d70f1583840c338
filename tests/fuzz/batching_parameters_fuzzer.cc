// --batching_parameters_file and per-model batching_params.pbtxt: text BatchingParameters ->
// BatchingOptions with TF Serving's validation. Invariants: accepted options are coherent (the
// execution batch fits the batch, padding never shrinks a batch or exceeds the largest
// allowed size).
#include <algorithm>

#include "server/batching/batching_options.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = tensord::fuzz::ScratchFile(
      "batching_parameters.pbtxt", std::string_view(reinterpret_cast<const char*>(data), size));
  absl::StatusOr<tensord::BatchingOptions> options = tensord::ReadBatchingParametersFile(path);
  if (!options.ok()) return 0;
  FUZZ_CHECK(options->max_batch_size > 0);
  FUZZ_CHECK(options->max_execution_batch_size > 0);
  FUZZ_CHECK(options->max_execution_batch_size <= options->max_batch_size);
  const int64_t rows_checked = std::min<int64_t>(options->max_execution_batch_size, 4096);
  for (int64_t rows = 1; rows <= rows_checked; ++rows) {
    const int64_t padded = tensord::PaddedBatchSize(*options, rows);
    FUZZ_CHECK(padded >= rows);
    if (!options->allowed_batch_sizes.empty()) {
      FUZZ_CHECK(padded <= options->allowed_batch_sizes.back() || padded == rows);
    }
  }
  return 0;
}
