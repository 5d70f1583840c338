#include "runtime/optimizer/drop_constant_control_edges.h"

#include <algorithm>
#include <set>
#include <string>

#include "runtime/graph/tensor_name.h"

namespace tensord {

int DropConstantControlEdges(const GraphPassContext& context) {
  std::set<std::string> constants;
  for (const auto& node : context.graph->node()) {
    if (node.op() == "Const" ||
        (context.constants != nullptr && context.constants->count(node.name()) > 0)) {
      constants.insert(node.name());
    }
  }
  int dropped = 0;
  for (auto& node : *context.graph->mutable_node()) {
    auto* inputs = node.mutable_input();
    const auto end = std::remove_if(inputs->begin(), inputs->end(), [&](const std::string& in) {
      const TensorRef ref = ParseTensorRef(in);
      return ref.is_control() && constants.count(ref.node) > 0;
    });
    dropped += static_cast<int>(inputs->end() - end);
    inputs->erase(end, inputs->end());
  }
  return dropped;
}

}  // namespace tensord
