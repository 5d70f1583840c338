// OpRegistry: the OpDefs a model's graph uses, taken from its MetaGraphDef's stripped_op_list,
// plus the signatures of its library functions (which act as ops when called).
//
// Used to restore attrs stripped because they equal their default (all TF2 exports), and to map
// "node:out_arg:i" references to flat output indices. Immutable after construction;
// thread-safe for reads.
#ifndef TENSORD_RUNTIME_GRAPH_OP_REGISTRY_H_
#define TENSORD_RUNTIME_GRAPH_OP_REGISTRY_H_

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "protos/tensorflow/function.pb.h"
#include "protos/tensorflow/node_def.pb.h"
#include "protos/tensorflow/op_def.pb.h"

namespace tensord {

class OpRegistry {
 public:
  OpRegistry(const ::tensorflow::OpList& ops, const ::tensorflow::FunctionDefLibrary& library);

  // The OpDef of `op` (the model's, else a built-in one; see builtin_op_defs.h), or null when
  // unknown.
  const ::tensorflow::OpDef* Find(const std::string& op) const;
  const ::tensorflow::FunctionDef* FindFunction(const std::string& name) const;

  // Adds every attr of the node's OpDef that the node lacks and that has a default.
  // Nodes of unknown ops are left unchanged.
  void AddDefaultAttrs(::tensorflow::NodeDef* node) const;

  // The flat output index of element `index` of output arg `arg` of `node`.
  absl::StatusOr<int> OutputIndex(const ::tensorflow::NodeDef& node, const std::string& arg,
                                  int index) const;

  // Total flat outputs of the node (sum over output args), or an error for unknown ops.
  absl::StatusOr<int> NumOutputs(const ::tensorflow::NodeDef& node) const;

 private:
  std::map<std::string, ::tensorflow::OpDef> ops_;
  std::map<std::string, ::tensorflow::FunctionDef> functions_;
};

}  // namespace tensord

#endif  // TENSORD_RUNTIME_GRAPH_OP_REGISTRY_H_
