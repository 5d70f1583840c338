// saved_model.pb, as a model directory hands it to the loader: parsed, its "serve" MetaGraphDef
// found, every call to a library function inlined (functional control flow flattened into its
// node's attrs), identities folded away, and the signatures' tensor references resolved.
// Invariants: every input is loaded or refused with a status; the flat graph has no calls
// left and every node's outputs can be counted for ops the registry knows.
#include <filesystem>
#include <set>

#include "protos/tensorflow/saved_model.pb.h"
#include "runtime/graph/function_inliner.h"
#include "runtime/graph/identity_elimination.h"
#include "runtime/graph/op_registry.h"
#include "runtime/graph/tensor_name.h"
#include "runtime/saved_model/loader.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string dir = [] {
    const std::string d = tensord::fuzz::ScratchDir() + "/saved_model";
    std::filesystem::create_directories(d);
    return d;
  }();
  tensord::fuzz::ScratchFile("saved_model/saved_model.pb",
                             std::string_view(reinterpret_cast<const char*>(data), size));
  ::tensorflow::SavedModel saved_model;
  if (!tensord::ReadSavedModel(dir, &saved_model).ok()) return 0;
  absl::StatusOr<const ::tensorflow::MetaGraphDef*> meta =
      tensord::FindMetaGraph(saved_model, {"serve"});
  if (!meta.ok()) return 0;
  const ::tensorflow::MetaGraphDef& mg = **meta;
  const tensord::OpRegistry ops(mg.meta_info_def().stripped_op_list(), mg.graph_def().library());
  ::tensorflow::GraphDef flat;
  if (!tensord::InlineFunctions(mg.graph_def(), ops, &flat).ok()) return 0;
  std::set<std::string> keep;
  for (const auto& [key, signature] : mg.signature_def()) {
    for (const auto* map : {&signature.inputs(), &signature.outputs()}) {
      for (const auto& [alias, info] : *map) {
        keep.insert(tensord::ParseTensorRef(info.name()).node);
      }
    }
  }
  tensord::EliminateIdentities(&flat, keep);
  for (const ::tensorflow::NodeDef& node : flat.node()) {
    FUZZ_CHECK(!tensord::IsFunctionCall(node, ops) || tensord::IsFunctionalControlFlow(node));
    (void)ops.NumOutputs(node);
  }
  return 0;
}
