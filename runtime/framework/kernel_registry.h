// Kernel registry: kernels are registered by (op, device, type constraints) from static
// registrars in kernels/ (linked with alwayslink) and looked up when a plan is built.
//
//   TENSORD_REGISTER_KERNEL(KernelDef("MatMul").Device(DeviceType::kCpu)
//                               .TypeConstraint("T", DT_FLOAT), MatMulOp<float>);
//
// A KernelDef may also name inputs that stay references (TF1 Assign's `ref`) and inputs or
// outputs that live in host memory on an accelerator (shapes, axes), so placement can respect
// them. Thread safety: registration happens during static initialisation; lookups are
// read-only afterwards and may run concurrently.
#ifndef TENSORD_RUNTIME_FRAMEWORK_KERNEL_REGISTRY_H_
#define TENSORD_RUNTIME_FRAMEWORK_KERNEL_REGISTRY_H_

#include <deque>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/node_hash_map.h"
#include "absl/status/statusor.h"
#include "runtime/framework/op_kernel.h"

namespace tensord {

class KernelDef {
 public:
  explicit KernelDef(std::string op) : op_(std::move(op)) {}
  KernelDef& Device(DeviceType device) {
    device_ = device;
    return *this;
  }
  // The node's attr `attr` (a type) must equal `dtype`.
  KernelDef& TypeConstraint(std::string attr, DataType dtype) {
    type_constraints_.emplace_back(std::move(attr), dtype);
    return *this;
  }
  // Input `index` is passed as a reference (OpKernelContext::input_ref), not read.
  KernelDef& RefInput(int index) {
    ref_inputs_.insert(index);
    return *this;
  }
  // Input `index` must be in host memory even on an accelerator. A negative index counts from
  // the end (-1: the last input), for ops whose host argument follows a variable-length list
  // (ConcatV2's axis).
  KernelDef& HostMemoryInput(int index) {
    host_inputs_.insert(index);
    return *this;
  }

  // Output `index` is written to host memory even on an accelerator (a copy back to the host).
  KernelDef& HostMemoryOutput(int index) {
    host_outputs_.insert(index);
    return *this;
  }

  const std::string& op() const { return op_; }
  DeviceType device() const { return device_; }
  const std::vector<std::pair<std::string, DataType>>& type_constraints() const {
    return type_constraints_;
  }
  const std::set<int>& ref_inputs() const { return ref_inputs_; }
  // Whether data input `index` of a node with `num_inputs` data inputs stays in host memory.
  bool IsHostMemoryInput(int index, int num_inputs) const {
    return host_inputs_.count(index) > 0 || host_inputs_.count(index - num_inputs) > 0;
  }
  const std::set<int>& host_outputs() const { return host_outputs_; }
  std::string DebugString() const;  // "MatMul CPU T=float"

 private:
  std::string op_;
  DeviceType device_ = DeviceType::kCpu;
  std::vector<std::pair<std::string, DataType>> type_constraints_;
  std::set<int> ref_inputs_;
  std::set<int> host_inputs_;
  std::set<int> host_outputs_;
};

using KernelFactory = std::function<std::unique_ptr<OpKernel>(OpKernelConstruction*)>;

struct KernelRegistration {
  KernelDef def;
  KernelFactory factory;
};

class KernelRegistry {
 public:
  static KernelRegistry& Global();

  void Register(KernelDef def, KernelFactory factory);

  // The registration matching the node's op and type attrs on `device`, or NOT_FOUND /
  // UNIMPLEMENTED naming the op, the node and the dtypes.
  absl::StatusOr<const KernelRegistration*> Find(const ::tensorflow::NodeDef& node,
                                                  DeviceType device) const;

  // Finds and constructs the kernel; attr errors name the node. `functions` (may be null)
  // instantiates the functions control-flow nodes call.
  absl::StatusOr<std::unique_ptr<OpKernel>> CreateKernel(
      const ::tensorflow::NodeDef& node, DeviceType device,
      const FunctionLibrary* functions = nullptr) const;

  bool HasOp(const std::string& op) const;
  // "Op DEVICE T=dtype" for every registration, sorted.
  std::vector<std::string> List() const;

 private:
  // By op, as a plan looks up every node's kernel. Neither a node map nor a deque moves what it
  // holds, so the pointers Find returns stay valid while registrations are added.
  absl::node_hash_map<std::string, std::deque<KernelRegistration>> by_op_;
};

namespace internal {
struct KernelRegistrar {
  KernelRegistrar(KernelDef def, KernelFactory factory) {
    KernelRegistry::Global().Register(std::move(def), std::move(factory));
  }
};
}  // namespace internal

#define TENSORD_REGISTER_KERNEL(def, ...) \
  TENSORD_REGISTER_KERNEL_UNIQ_(__COUNTER__, def, __VA_ARGS__)
#define TENSORD_REGISTER_KERNEL_UNIQ_(ctr, def, ...) \
  TENSORD_REGISTER_KERNEL_UNIQ2_(ctr, def, __VA_ARGS__)
#define TENSORD_REGISTER_KERNEL_UNIQ2_(ctr, def, ...)                          \
  static ::tensord::internal::KernelRegistrar tensord_kernel_registrar_##ctr( \
      def, [](::tensord::OpKernelConstruction* c) -> std::unique_ptr<::tensord::OpKernel> { \
        return std::make_unique<__VA_ARGS__>(c);                               \
      })

}  // namespace tensord

#endif  // TENSORD_RUNTIME_FRAMEWORK_KERNEL_REGISTRY_H_
