// Merging requests into one batch and splitting the results: inputs are concatenated along
// dim 0 (padded to an allowed batch size, and optionally in their other dims), outputs are cut
// back into per-request zero-copy slices.
//
// Pure functions on tensors; thread-compatible.
#ifndef TENSORD_SERVER_BATCHING_BATCH_MERGE_H_
#define TENSORD_SERVER_BATCHING_BATCH_MERGE_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/framework/tensor.h"

namespace tensord {

using TensorMap = std::map<std::string, Tensor>;

// The dim-0 size shared by all of a request's inputs. INVALID_ARGUMENT for no inputs, a scalar
// input or unequal dim-0 sizes (such a request cannot be batched).
absl::StatusOr<int64_t> BatchRows(const TensorMap& inputs);

// True when both requests have the same aliases, dtypes and non-batch dimensions, so they
// concatenate without padding.
bool SameInnerShapes(const TensorMap& a, const TensorMap& b);

// True when both have the same aliases, dtypes and ranks (they merge with inner padding).
bool SameRanks(const TensorMap& a, const TensorMap& b);

// Concatenates `parts` (each validated by BatchRows) along dim 0 into `padded_rows` rows
// (>= their total). Rows past the total repeat the first row, a valid input, so the model
// runs normally; their outputs are dropped by the caller. With `pad_inner`, every non-batch
// dimension is padded to the largest in the batch with `pad_value` ("" for strings); without
// it, unequal inner dimensions are INVALID_ARGUMENT.
absl::StatusOr<TensorMap> MergeInputs(const std::vector<const TensorMap*>& parts,
                                      int64_t padded_rows, bool pad_inner, double pad_value);

// Rows [begin, end) of every output, sharing the outputs' buffers. INTERNAL naming the output
// when one does not have `batch_rows` rows (the signature does not batch along dim 0).
absl::StatusOr<TensorMap> SliceOutputs(const TensorMap& outputs, int64_t batch_rows,
                                       int64_t begin, int64_t end);

// Concatenates per-piece outputs back into one result (a request split across batches).
absl::StatusOr<TensorMap> ConcatOutputs(const std::vector<TensorMap>& pieces);

}  // namespace tensord

#endif  // TENSORD_SERVER_BATCHING_BATCH_MERGE_H_
