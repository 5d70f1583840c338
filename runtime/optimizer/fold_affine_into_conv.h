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

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/optimizer/graph_view.h"

namespace tensord {

// A folded filter still to compute: `filter` times `scale` (scale[i] for output channel i),
// the value of the constants named `constants` (copies of one layer share it).
struct FilterScale {
  Tensor filter;
  std::vector<float> scale;
  std::vector<std::string> constants;
};

struct FoldedAffine {
  int folded_ops = 0;
  std::vector<FilterScale> filter_scales;  // for ScaleFoldedFilters
};

// Folds in place of `context`'s graph; needs its constant table (nothing is folded without
// one). The new filter constants hold their original filters until ScaleFoldedFilters runs.
absl::StatusOr<FoldedAffine> FoldAffineIntoConv(const GraphPassContext& context);

// Computes the folded filters into `constants`. Meant for once nothing else needs the original
// values (after the load released what serving no longer reads): a filter nothing else holds
// then is scaled in its own buffer rather than into a copy, which spares a model's worth of
// memory and of load time. A folded constant no longer in the table is skipped.
void ScaleFoldedFilters(std::vector<FilterScale> scales, ConstantTable* constants);

}  // namespace tensord

#endif  // TENSORD_RUNTIME_OPTIMIZER_FOLD_AFFINE_INTO_CONV_H_
