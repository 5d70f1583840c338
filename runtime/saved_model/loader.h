// Loading a SavedModel directory and running its signatures.
//
//   TENSORD_ASSIGN_OR_RETURN(auto bundle, SavedModelBundle::Load("/models/m/1", {}));
//   TENSORD_ASSIGN_OR_RETURN(auto outputs, bundle->RunSignature("serving_default", {{"x", t}}));
//
// Load reads saved_model.pb (or saved_model.pbtxt), selects the MetaGraphDef whose tag set
// equals options.tags exactly, inlines the function library, restores variables by running
// the graph's own restore op fed with the variables prefix, and runs the init op with asset
// paths fed. Every failure is a Status naming the file, tag set, node or op at fault.
//
// Thread safety: RunSignature may be called concurrently.
#ifndef TENSORD_RUNTIME_SAVED_MODEL_LOADER_H_
#define TENSORD_RUNTIME_SAVED_MODEL_LOADER_H_

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "protos/tensorflow/meta_graph.pb.h"
#include "protos/tensorflow/saved_model.pb.h"
#include "runtime/exec/placement.h"
#include "runtime/exec/precision.h"
#include "runtime/exec/session.h"
#include "runtime/framework/tensor.h"

namespace tensord {

inline constexpr char kDefaultServingSignature[] = "serving_default";
inline constexpr char kInitOpSignature[] = "__saved_model_init_op";

// Reads and parses saved_model.pb / saved_model.pbtxt into `*model` (which may live on an
// arena) without loading anything else.
absl::Status ReadSavedModel(const std::string& export_dir, ::tensorflow::SavedModel* model);

// The MetaGraphDef whose tag set equals `tags`, or NOT_FOUND listing the available tag sets.
absl::StatusOr<const ::tensorflow::MetaGraphDef*> FindMetaGraph(
    const ::tensorflow::SavedModel& saved_model, const std::set<std::string>& tags);

struct LoadOptions {
  // Tag set to select; must match a MetaGraphDef's tags exactly.
  std::set<std::string> tags = {"serve"};
  SessionOptions session;
  // Which device each node asks for when the graph names none (runtime/exec/placement.h).
  PlacementOptions placement;
  // The arithmetic of the CPU's matrix products and convolutions (runtime/exec/precision.h);
  // bf16 on a CPU without bfloat16 arithmetic loads in fp32 (SavedModelBundle::precision()).
  ComputePrecision precision = ComputePrecision::kFloat32;
  // Freeze read-only variables and fold constants after init (runtime/saved_model/
  // serving_optimizer.h). Off only for debugging.
  bool optimize = true;
};

class SavedModelBundle {
 public:
  static absl::StatusOr<std::unique_ptr<SavedModelBundle>> Load(const std::string& export_dir,
                                                                const LoadOptions& options);

  const std::string& export_dir() const { return export_dir_; }
  // The loaded MetaGraphDef without its graph_def (signatures, meta info, asset files).
  const ::tensorflow::MetaGraphDef& meta_graph_def() const { return meta_graph_; }
  // The dtype the graph itself gives signature input `tensor_name` ("node:index"): a
  // placeholder's dtype or an Identity's T. Old exports declare a wrong dtype in the signature
  // (DT_FLOAT for a string placeholder); TF Serving's Classify and Regress go by the graph.
  // DT_INVALID when the input's node is of another kind.
  DataType GraphInputDtype(const std::string& tensor_name) const;
  // Signatures available for serving (the init-op pseudo-signature is excluded).
  std::map<std::string, ::tensorflow::SignatureDef> signatures() const;

  // Runs `signature_key` with inputs keyed by input alias. Returns the signature's outputs
  // keyed by alias (only `output_filter` when non-empty). Unknown signature → NOT_FOUND style
  // error; unknown alias, wrong dtype or missing required input → INVALID_ARGUMENT.
  absl::StatusOr<std::map<std::string, Tensor>> RunSignature(
      const std::string& signature_key, const std::map<std::string, Tensor>& inputs,
      const std::vector<std::string>& output_filter = {}, const RunOptions& run_options = {}) const;

  Session* session() const { return session_.get(); }
  // Where the serving graph's nodes run, decided at load.
  const PlacementRecord& placement() const { return placement_; }
  // The precision the model runs in: LoadOptions::precision, or fp32 where the CPU cannot.
  ComputePrecision precision() const { return precision_; }

  // What load-time optimisation did (zero when LoadOptions::optimize was off).
  int frozen_variables() const { return frozen_variables_; }
  int folded_nodes() const { return folded_nodes_; }
  // What each graph pass of the load did, by pass name (runtime/saved_model/load_passes.h):
  // "hoist_loop_invariant_reads" (variable reads moved in front of loops),
  // "fold_pad_into_conv", "fold_affine_into_conv", "fuse_bias_activation" (ops folded into
  // convolutions, convolutions and matrix products fused with bias and activation),
  // "fuse_elementwise" (ops merged into _FusedElementwise nodes, loop and branch bodies
  // included), "eliminate_identities" (pass-through nodes removed), "placement" (nodes
  // placed), "reduced_precision" (nodes computing in bf16), "copy_insertion" (copies between
  // memories).
  const std::map<std::string, int>& pass_rewrites() const { return pass_rewrites_; }
  // pass_rewrites() of one pass; 0 for a pass that did not run.
  int rewrites(const std::string& pass) const;
  // Variables not restored from the checkpoint because nothing serving runs reads them.
  int skipped_restores() const { return skipped_restores_; }
  // Variables dropped after loading because serving no longer reads them (frozen or unused).
  int released_variables() const { return released_variables_; }
  // Top-level nodes dropped before function inlining because neither the loader nor a
  // signature runs them (the save function's call, for one).
  int skipped_top_level_nodes() const { return skipped_top_level_nodes_; }
  // Graph nodes dropped after loading because no signature runs them.
  int pruned_nodes() const { return pruned_nodes_; }
  // Whether some signature writes variables, so runs depend on each other (unknown, and so
  // true, when LoadOptions::optimize was off). Batching must not merge such runs.
  bool has_mutable_state() const { return has_mutable_state_; }

 private:
  SavedModelBundle() = default;
  // Load without returning freed memory to the system: Load does that once everything this
  // allocated for loading alone (graphs, the load session's plans) is gone.
  static absl::StatusOr<std::unique_ptr<SavedModelBundle>> LoadAndOptimize(
      const std::string& export_dir, const LoadOptions& options);

  std::string export_dir_;
  ::tensorflow::MetaGraphDef meta_graph_;
  std::map<std::string, DataType> graph_input_dtypes_;  // by signature input node name
  std::unique_ptr<Session> session_;
  PlacementRecord placement_;
  ComputePrecision precision_ = ComputePrecision::kFloat32;
  int frozen_variables_ = 0;
  int folded_nodes_ = 0;
  std::map<std::string, int> pass_rewrites_;
  int skipped_restores_ = 0;
  int released_variables_ = 0;
  int skipped_top_level_nodes_ = 0;
  int pruned_nodes_ = 0;
  bool has_mutable_state_ = true;
};

}  // namespace tensord

#endif  // TENSORD_RUNTIME_SAVED_MODEL_LOADER_H_
