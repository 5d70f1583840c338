// Load-time pass: per-channel affine ops after a convolution (Conv2D or
// DepthwiseConv2dNative) are folded into its filter and a bias. Batch normalisation at inference is such an op — Keras 3 exports it as Mul and
// AddV2 (or Sub) with per-channel constants, TF1/Keras 2 as FusedBatchNorm(V3) — as are
// BiasAdd and constant scaling:
//
//   Conv2D(x, W) -> BiasAdd(b) -> Mul(s) -> AddV2(t)   becomes   Conv2D(x, W·s) -> BiasAdd(b·s + t)
//
// Only chains where each intermediate result feeds nothing else (and no signature reads it)
// are folded, and only with constant filters and per-channel (or scalar) constants, so results
// stay those of the original graph up to float rounding. The last op of the chain keeps its
// name, as a BiasAdd; FuseBiasActivation then merges it into the convolution.
#ifndef TENSORD_RUNTIME_OPTIMIZER_FOLD_AFFINE_INTO_CONV_H_
#define TENSORD_RUNTIME_OPTIMIZER_FOLD_AFFINE_INTO_CONV_H_

#include "absl/status/statusor.h"
#include "runtime/optimizer/graph_view.h"

namespace tensord {

// Returns the number of ops folded away.
absl::StatusOr<int> FoldAffineIntoConv(const GraphPassContext& context);

}  // namespace tensord

#endif  // TENSORD_RUNTIME_OPTIMIZER_FOLD_AFFINE_INTO_CONV_H_
