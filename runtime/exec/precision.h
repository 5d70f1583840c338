// ComputePrecision: the arithmetic a model's matrix products and convolutions use on the CPU,
// tensord's --precision flag and, per model, the `precision` field of its ModelConfig
// (protos/serving/model_server_config.proto). Apart from the passes that apply it, so that flag
// and config parsing (tensord, tensorctl) need nothing else of the runtime.
//
//   fp32  float32 everywhere, as TensorFlow computes. The default.
//   bf16  the CPU's float matrix products and convolutions (MatMul, _FusedMatMul, Conv2D,
//         _FusedConv2D, and BatchMatMul* of a batch against one weight matrix) read their
//         inputs and weights rounded to bfloat16 and accumulate in float32; every tensor between
//         nodes stays float32, so softmax, normalisation, activations, reductions, attention's
//         batched products (Einsum, BatchMatMul of two batches) and depthwise convolutions run
//         in float32, as do matrix products of fewer than 32768 multiply-adds. Weights are
//         converted once, at their first use. Needs AVX512_BF16 (AMX-BF16, where present, runs
//         the products): on a CPU without it the model loads in fp32 and the load logs a warning.
#ifndef TENSORD_RUNTIME_EXEC_PRECISION_H_
#define TENSORD_RUNTIME_EXEC_PRECISION_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tensord {

enum class ComputePrecision { kFloat32, kBfloat16 };

// "fp32", "bf16".
std::string PrecisionName(ComputePrecision precision);

// "fp32" or "bf16"; INVALID_ARGUMENT naming the text and the accepted forms otherwise.
absl::StatusOr<ComputePrecision> ParsePrecision(absl::string_view text);

// Whether this CPU has bfloat16 arithmetic (AVX512_BF16), which bf16 precision needs.
bool CpuHasBfloat16();
// Whether it also has AMX tiles for bfloat16 (AMX-BF16): the products run on them.
bool CpuHasAmxBfloat16();

// The node attribute (a string, PrecisionName) through which the load tells a kernel its
// precision; absent means fp32.
inline constexpr char kPrecisionAttr[] = "_tensord_precision";

}  // namespace tensord

#endif  // TENSORD_RUNTIME_EXEC_PRECISION_H_
