#include "runtime/saved_model/load_passes.h"

#include "runtime/exec/copy_insertion.h"
#include "runtime/graph/function_inliner.h"
#include "runtime/graph/identity_elimination.h"
#include "runtime/optimizer/drop_constant_control_edges.h"
#include "runtime/optimizer/fold_pad_into_conv.h"
#include "runtime/optimizer/fuse_bias_activation.h"
#include "runtime/optimizer/fuse_elementwise.h"
#include "runtime/optimizer/hoist_loop_invariant_reads.h"
#include "runtime/util/status_macros.h"

namespace tensord {

const std::string& FoldAffineIntoConvPass::name() const {
  static const std::string* const kName = new std::string("fold_affine_into_conv");
  return *kName;
}

absl::StatusOr<int> FoldAffineIntoConvPass::Run(const GraphPassContext& context) {
  TENSORD_ASSIGN_OR_RETURN(FoldedAffine folded, FoldAffineIntoConv(context));
  for (FilterScale& scale : folded.filter_scales) filter_scales_.push_back(std::move(scale));
  return folded.folded_ops;
}

GraphPassPipeline LoopPasses(const OpRegistry& ops) {
  GraphPassPipeline passes;
  passes.Add("hoist_loop_invariant_reads", [&ops](const GraphPassContext& c) {
    int hoisted = 0;
    RewriteFlatFunctions(c.graph, [&](::tensorflow::GraphDef* body) {
      hoisted += HoistLoopInvariantReads(body, ops);
    });
    return absl::StatusOr<int>(hoisted + HoistLoopInvariantReads(c.graph, ops));
  });
  return passes;
}

GraphPassPipeline OptimizationPasses(FoldAffineIntoConvPass** fold_affine) {
  GraphPassPipeline passes;
  passes.Add("drop_constant_control_edges", [](const GraphPassContext& c) {
    return absl::StatusOr<int>(DropConstantControlEdges(c));
  });
  passes.Add("fold_pad_into_conv", FoldPadIntoConv);
  *fold_affine = passes.Add(std::make_unique<FoldAffineIntoConvPass>());
  passes.Add("fuse_bias_activation", FuseBiasActivation);
  passes.Add("fuse_elementwise", [](const GraphPassContext& c) {
    int fused = FuseElementwise(c);
    // Loop and branch bodies run once per step: their elementwise ops gain the most.
    RewriteFlatFunctions(c.graph, [&fused](::tensorflow::GraphDef* body) {
      fused += FuseElementwise({body, nullptr, {FunctionCallName()}});
    });
    return absl::StatusOr<int>(fused);
  });
  passes.Add("eliminate_identities", [](const GraphPassContext& c) {
    return absl::StatusOr<int>(EliminateIdentities(c.graph, c.keep));
  });
  return passes;
}

GraphPassPipeline DevicePasses(const DeviceSet& devices, const PlacementOptions& options,
                               ComputePrecision precision, PlacementRecord* record) {
  GraphPassPipeline passes;
  passes.Add("placement", [&devices, options, record](const GraphPassContext& c) {
    *record = PlaceGraph(c.graph, devices, options);
    return absl::StatusOr<int>(static_cast<int>(record->nodes.size()));
  });
  passes.Add("reduced_precision", [precision](const GraphPassContext& c) {
    return absl::StatusOr<int>(MarkReducedPrecision(c.graph, precision));
  });
  passes.Add("copy_insertion", [record](const GraphPassContext& c) {
    const int copies = InsertCopies(c.graph);
    record->copies += copies;
    return absl::StatusOr<int>(copies);
  });
  return passes;
}

}  // namespace tensord
