// The graph passes a model load runs, as ordered lists (runtime/optimizer/graph_pass.h), one
// per phase of SavedModelBundle::Load:
//
//   LoopPasses          before variables are frozen, so that the reads it moves out of loops
//                       are frozen with the others: hoist_loop_invariant_reads.
//   OptimizationPasses  after the serving optimizer froze variables and folded constants:
//                       drop_constant_control_edges, fold_pad_into_conv, fold_affine_into_conv,
//                       fuse_bias_activation, fuse_elementwise, eliminate_identities.
//   DevicePasses        last, over the graph serving runs (also when optimisation is off):
//                       placement, reduced_precision, copy_insertion.
//
// Each pass has its own test beside it; load_passes_test checks the lists. A pass's count
// (rewrites it made) is kept by name on the bundle (SavedModelBundle::pass_rewrites()).
#ifndef TENSORD_RUNTIME_SAVED_MODEL_LOAD_PASSES_H_
#define TENSORD_RUNTIME_SAVED_MODEL_LOAD_PASSES_H_

#include <string>
#include <vector>

#include "runtime/exec/placement.h"
#include "runtime/exec/reduced_precision.h"
#include "runtime/graph/op_registry.h"
#include "runtime/optimizer/fold_affine_into_conv.h"
#include "runtime/optimizer/graph_pass.h"

namespace tensord {

// fold_affine_into_conv as a pass that keeps the filter scales it computes: the loader applies
// them (ScaleFoldedFilters) once the load has released what else held the original filters.
class FoldAffineIntoConvPass : public GraphPass {
 public:
  const std::string& name() const override;
  absl::StatusOr<int> Run(const GraphPassContext& context) override;
  std::vector<FilterScale> TakeFilterScales() { return std::move(filter_scales_); }

 private:
  std::vector<FilterScale> filter_scales_;
};

// `ops` must outlive the pipeline.
GraphPassPipeline LoopPasses(const OpRegistry& ops);

// `*fold_affine` is set to the pipeline's fold_affine_into_conv pass.
GraphPassPipeline OptimizationPasses(FoldAffineIntoConvPass** fold_affine);

// Placement records every node's device in `*record` (which must outlive the pipeline),
// reduced_precision marks the nodes that compute in `precision` (an effective one:
// EffectivePrecision), and copy insertion adds its copies to the record's count.
GraphPassPipeline DevicePasses(const DeviceSet& devices, const PlacementOptions& options,
                               ComputePrecision precision, PlacementRecord* record);

}  // namespace tensord

#endif  // TENSORD_RUNTIME_SAVED_MODEL_LOAD_PASSES_H_
