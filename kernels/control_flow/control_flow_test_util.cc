#include "kernels/control_flow/control_flow_test_util.h"

#include "google/protobuf/text_format.h"
#include "runtime/graph/function_inliner.h"
#include "runtime/graph/op_registry.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace testing {

const char kControlFlowTestOps[] = R"pb(
  op { name: "Const" output_arg { name: "output" type_attr: "dtype" }
       attr { name: "value" type: "tensor" } attr { name: "dtype" type: "type" } }
  op { name: "Less" input_arg { name: "x" type_attr: "T" } input_arg { name: "y" type_attr: "T" }
       output_arg { name: "z" type: DT_BOOL } attr { name: "T" type: "type" } }
  op { name: "AddV2" input_arg { name: "x" type_attr: "T" } input_arg { name: "y" type_attr: "T" }
       output_arg { name: "z" type_attr: "T" } attr { name: "T" type: "type" } }
  op { name: "Mul" input_arg { name: "x" type_attr: "T" } input_arg { name: "y" type_attr: "T" }
       output_arg { name: "z" type_attr: "T" } attr { name: "T" type: "type" } }
  op { name: "Neg" input_arg { name: "x" type_attr: "T" } output_arg { name: "y" type_attr: "T" }
       attr { name: "T" type: "type" } }
  op { name: "Reshape" input_arg { name: "tensor" type_attr: "T" }
       input_arg { name: "shape" type_attr: "Tshape" }
       output_arg { name: "output" type_attr: "T" }
       attr { name: "T" type: "type" }
       attr { name: "Tshape" type: "type" default_value { type: DT_INT32 } } }
)pb";

absl::StatusOr<std::vector<Tensor>> RunGraphText(
    const std::string& graph_text, const std::vector<std::pair<std::string, Tensor>>& feeds,
    const std::vector<std::string>& fetches, const RunOptions& options) {
  ::tensorflow::GraphDef graph;
  ::tensorflow::OpList ops;
  if (!google::protobuf::TextFormat::ParseFromString(graph_text, &graph) ||
      !google::protobuf::TextFormat::ParseFromString(kControlFlowTestOps, &ops)) {
    return absl::InvalidArgumentError("test graph or op list does not parse");
  }
  OpRegistry registry(ops, graph.library());
  ::tensorflow::GraphDef flat;
  TENSORD_RETURN_IF_ERROR(InlineFunctions(graph, registry, &flat));
  TENSORD_ASSIGN_OR_RETURN(std::unique_ptr<Session> session,
                           NewSession(std::move(flat), SessionOptions()));
  std::vector<Tensor> outputs;
  TENSORD_RETURN_IF_ERROR(session->Run(feeds, fetches, {}, options, &outputs));
  return outputs;
}

}  // namespace testing
}  // namespace tensord
