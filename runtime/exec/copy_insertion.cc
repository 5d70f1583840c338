#include "runtime/exec/copy_insertion.h"

#include <map>
#include <set>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "runtime/exec/placer.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/graph/function_inliner.h"
#include "runtime/graph/tensor_name.h"

namespace tensord {
namespace {

using ::tensorflow::GraphDef;
using ::tensorflow::NodeDef;

constexpr char kHost[] = "";  // the memory key of host memory; a GPU's is its device name

bool OnGpu(const NodeDef& node) {
  return RequestedDeviceType(node.device()) == DeviceType::kGpu;
}

// The registration of a GPU-placed node's kernel, or null.
const KernelRegistration* GpuKernel(const NodeDef& node) {
  auto found = KernelRegistry::Global().Find(node, DeviceType::kGpu);
  return found.ok() ? *found : nullptr;
}


int NumDataInputs(const NodeDef& node) {
  int n = 0;
  for (const std::string& input : node.input()) {
    if (!ParseTensorRef(input).is_control()) ++n;
  }
  return n;
}

std::string InputMemory(const NodeDef& consumer, int input) {
  if (!OnGpu(consumer)) return kHost;
  const KernelRegistration* kernel = GpuKernel(consumer);
  if (kernel != nullptr && kernel->def.IsHostMemoryInput(input, NumDataInputs(consumer))) {
    return kHost;
  }
  return consumer.device();
}

class CopyInserter {
 public:
  explicit CopyInserter(GraphDef* graph) : graph_(graph) {
    for (const NodeDef& node : graph->node()) names_.insert(node.name());
  }

  int Run() {
    // Indices, not pointers: adding copy nodes reallocates the node array.
    const int original = graph_->node_size();
    absl::flat_hash_map<std::string, int> index;
    for (int i = 0; i < original; ++i) index[graph_->node(i).name()] = i;
    for (int c = 0; c < original; ++c) {
      for (int i = 0, data_input = 0; i < graph_->node(c).input_size(); ++i) {
        const TensorRef ref = ParseTensorRef(graph_->node(c).input(i));
        if (ref.is_control()) continue;
        const int position = data_input++;
        auto producer = index.find(ref.node);
        if (producer == index.end()) continue;  // the loader reports dangling inputs
        const std::string from = OutputMemory(graph_->node(producer->second), ref.index);
        const std::string to = InputMemory(graph_->node(c), position);
        if (from == to) continue;
        std::string value = ref.ToString();
        if (from != kHost) value = Copy(value, kDeviceToHostOp, from, kHost);
        if (to != kHost) value = Copy(value, kHostToDeviceOp, to, to);
        graph_->mutable_node(c)->set_input(i, value);
      }
    }
    return graph_->node_size() - original;
  }

 private:
  // The copy of `value` into `destination` memory by a node of `op` on `device`, made on first
  // use; returns its output's name.
  std::string Copy(const std::string& value, const char* op, const std::string& device,
                   const std::string& destination) {
    auto [it, inserted] = copies_.try_emplace({value, destination});
    if (!inserted) return it->second;
    const std::string where =
        destination == kHost ? "host" : absl::StrReplaceAll(destination, {{"/device:", ""},
                                                                           {":", "_"}});
    std::string name = absl::StrCat(absl::StrReplaceAll(value, {{":", "_"}}), "/_to_", where);
    while (!names_.insert(name).second) name += "_";
    NodeDef* node = graph_->add_node();
    node->set_name(name);
    node->set_op(op);
    node->set_device(device);
    node->add_input(value);
    it->second = name;
    return name;
  }

  GraphDef* const graph_;
  std::set<std::string> names_;
  std::map<std::pair<std::string, std::string>, std::string> copies_;  // (value, memory) -> copy
};

}  // namespace

std::string OutputMemory(const NodeDef& producer, int output) {
  if (!OnGpu(producer)) return kHost;
  const KernelRegistration* kernel = GpuKernel(producer);
  if (kernel != nullptr && kernel->def.host_outputs().count(output)) return kHost;
  return producer.device();
}

int InsertCopies(GraphDef* graph) {
  int copies = 0;
  RewriteFlatFunctions(graph, [&copies](GraphDef* body) { copies += CopyInserter(body).Run(); });
  copies += CopyInserter(graph).Run();
  return copies;
}

}  // namespace tensord
