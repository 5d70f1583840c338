// OpKernel: the computation of one graph node on one device.
//
// A kernel is constructed once per node when an execution plan is built (reading its attrs
// through OpKernelConstruction) and then computed any number of times, possibly concurrently
// from several runs: Compute is const and must keep no per-run state in the kernel object.
// Errors go through absl::Status, never CHECK or abort: kernels see request data.
//
// Writing a kernel:
//   class NegOp : public OpKernel {
//    public:
//     explicit NegOp(OpKernelConstruction* c) : OpKernel(c) {}
//     absl::Status Compute(OpKernelContext* c) const override {
//       const Tensor& x = c->input(0);
//       Tensor* y = c->allocate_output_for_overwrite(0, x.dtype(), x.shape());
//       const float* in = x.data<float>();
//       float* out = y->data<float>();
//       // Split over the intra-op threads (runtime/framework/parallel_for.h).
//       ParallelFor(c->eigen_cpu_device(), x.NumElements(), Eigen::TensorOpCost(4, 4, 1),
//                   [&](Eigen::Index begin, Eigen::Index end) {
//                     for (Eigen::Index i = begin; i < end; ++i) out[i] = -in[i];
//                   });
//       return absl::OkStatus();
//     }
//   };
//   TENSORD_REGISTER_KERNEL(KernelDef("Neg").Device(kCpu).TypeConstraint("T", DT_FLOAT), NegOp);
#ifndef TENSORD_RUNTIME_FRAMEWORK_OP_KERNEL_H_
#define TENSORD_RUNTIME_FRAMEWORK_OP_KERNEL_H_

#include <deque>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "protos/tensorflow/node_def.pb.h"
#include "runtime/framework/device.h"
#include "runtime/framework/function.h"
#include "runtime/framework/resource.h"
#include "runtime/framework/tensor.h"

namespace tensord {

class CancellationToken;
class FunctionPlan;   // runtime/exec/function_plan.h
struct ExecutionEnv;  // runtime/exec/executor.h

// What a kernel may read while it is constructed: its NodeDef (attrs already completed with
// defaults), the device it runs on, and the functions its node calls. Attribute errors are
// recorded with SetError and reported by the registry after construction, naming the node.
class OpKernelConstruction {
 public:
  // `functions` (not owned, may be null) instantiates the node's function attrs.
  OpKernelConstruction(const ::tensorflow::NodeDef& node, DeviceType device,
                       const FunctionLibrary* functions = nullptr)
      : node_(node), device_(device), functions_(functions) {}

  const ::tensorflow::NodeDef& node_def() const { return node_; }
  const std::string& name() const { return node_.name(); }
  const std::string& op() const { return node_.op(); }
  DeviceType device_type() const { return device_; }

  bool HasAttr(absl::string_view name) const;
  // Each returns false and records an error when the attr is missing or of another type.
  bool GetAttr(absl::string_view name, int64_t* value);
  bool GetAttr(absl::string_view name, int32_t* value);
  bool GetAttr(absl::string_view name, float* value);
  bool GetAttr(absl::string_view name, bool* value);
  bool GetAttr(absl::string_view name, std::string* value);
  bool GetAttr(absl::string_view name, DataType* value);
  bool GetAttr(absl::string_view name, std::vector<int64_t>* value);
  bool GetAttr(absl::string_view name, std::vector<int32_t>* value);
  bool GetAttr(absl::string_view name, std::vector<float>* value);
  bool GetAttr(absl::string_view name, std::vector<DataType>* value);
  bool GetAttr(absl::string_view name, std::vector<std::string>* value);
  bool GetAttr(absl::string_view name, PartialShape* value);
  bool GetAttr(absl::string_view name, std::vector<PartialShape>* value);
  bool GetAttr(absl::string_view name, Tensor* value);  // a `tensor` attr (Const's value)

  // The functions of function attr `attr` (FunctionLibrary::Instantiate); FAILED_PRECONDITION
  // when whoever builds the kernel gives no library.
  absl::StatusOr<std::vector<std::unique_ptr<Function>>> InstantiateFunctions(
      const std::string& attr);

  // Records the first error; later ones are dropped.
  void SetError(absl::Status status);
  const absl::Status& status() const { return status_; }

 private:
  const ::tensorflow::AttrValue* Find(absl::string_view name, const char* expected_type);

  const ::tensorflow::NodeDef& node_;
  DeviceType device_;
  const FunctionLibrary* functions_;
  absl::Status status_;
};

// Per-call state of one kernel execution: inputs, outputs, and the session's shared services.
// Created by the executor; kernels never store it.
class OpKernelContext {
 public:
  struct Params {
    const std::string* node_name = nullptr;
    // Inline storage: a node's inputs and outputs are set up for every kernel call, and most
    // nodes have few.
    absl::InlinedVector<Tensor, 4> inputs;  // values (refs already read)
    // Where non-null (may be shorter than `inputs`), input i is read in place from there
    // instead of from inputs[i]: the executor lends values other nodes still read and
    // constants, sparing a reference count update per input. The pointee must outlive the
    // context; a lent input is never forwarded to an output.
    absl::InlinedVector<const Tensor*, 4> lent_inputs;
    // Non-null for ref edges (may be shorter than `inputs`: the rest are null).
    absl::InlinedVector<std::shared_ptr<Var>, 4> input_refs;
    int num_outputs = 0;
    // Per output below num_outputs: whether anything in the run reads it. Null: all are read.
    const std::vector<bool>* outputs_read = nullptr;
    ResourceMgr* resource_mgr = nullptr;
    // The device the node runs on; outputs are allocated in its memory. Null: the CPU.
    Device* device = nullptr;
    // The CPU device's intra-op pool, for kernels on the CPU and host-side work on others.
    const Eigen::ThreadPoolDevice* eigen_cpu_device = nullptr;
    // The run's services, for the functions control-flow kernels run (runtime/exec reads
    // them; kernels do not), and its cancellation. Either may be null.
    const ExecutionEnv* execution_env = nullptr;
    const CancellationToken* cancellation = nullptr;
  };
  explicit OpKernelContext(Params&& params);

  const std::string& node_name() const { return *params_.node_name; }
  int num_inputs() const { return static_cast<int>(params_.inputs.size()); }
  const Tensor& input(int i) const { return *inputs_[i]; }
  // The variable behind a reference input (TF1 Assign and friends), or null.
  const std::shared_ptr<Var>& input_ref(int i) const;

  // Outputs the executor expects; kernels may set more (extra ones are ignored).
  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  // False when nothing in this run reads output i: a kernel may then leave it unset, sparing
  // the work (a checkpoint read restores only the variables a run needs).
  bool output_required(int i) const {
    return i < num_outputs() &&
           (params_.outputs_read == nullptr || (*params_.outputs_read)[i]);
  }
  // The device the kernel runs on (Params::device), never null.
  Device* device() const;
  DeviceType device_type() const { return device()->type(); }

  // Allocates output i in the memory of the kernel's device, zero-filled, and returns it (owned
  // by the context). On a GPU a failed allocation throws DeviceAllocationFailed
  // (runtime/framework/device_memory.h), which the executor turns into the request's error.
  Tensor* allocate_output(int i, DataType dtype, const TensorShape& shape);
  // Like allocate_output, but the contents of a numeric output are undefined: for kernels that
  // write every element (spares zero-filling large outputs).
  Tensor* allocate_output_for_overwrite(int i, DataType dtype, const TensorShape& shape);
  // Output i in the buffer of the first of `inputs` that this run will not read again (the
  // executor hands a node the last reference to a value it is the last reader of) and that has
  // `dtype` and `shape`; otherwise allocate_output_for_overwrite. Numeric types only. A
  // forwarded output aliases its input, so a kernel may use this only when it writes every
  // element and reads each input element before writing the same position of the output
  // (elementwise ops), or needs the input's values as the output's starting point.
  Tensor* forward_input_or_allocate_output(std::initializer_list<int> inputs, int i,
                                           DataType dtype, const TensorShape& shape);
  void set_output(int i, Tensor value);
  // Output i is a reference edge to `var` (VariableV2, Assign's output_ref).
  void set_output_ref(int i, std::shared_ptr<Var> var);

  // The num_outputs outputs the executor reads (sized once, so pointers returned by
  // allocate_output stay valid).
  absl::InlinedVector<Tensor, 4>& outputs() { return outputs_; }
  // The variable set as output i by set_output_ref, or null.
  std::shared_ptr<Var>* output_ref(int i) {
    return i < static_cast<int>(output_refs_.size()) ? &output_refs_[i] : nullptr;
  }

  ResourceMgr* resource_mgr() const { return params_.resource_mgr; }
  const Eigen::ThreadPoolDevice& eigen_cpu_device() const { return *params_.eigen_cpu_device; }
  const CancellationToken* cancellation() const { return params_.cancellation; }

  // Shorthand for errors that name the node: "<node>: <message>".
  absl::Status InvalidArgument(absl::string_view message) const;

 private:
  // The executor's functions run nested plans with the run's services.
  friend class FunctionPlan;
  const ExecutionEnv* execution_env() const { return params_.execution_env; }

  // Where output i goes: beyond num_outputs, a slot of `extra_outputs_`, which nothing reads.
  Tensor* OutputSlot(int i);

  Params params_;
  absl::InlinedVector<const Tensor*, 4> inputs_;  // into params_.inputs or lent
  absl::InlinedVector<Tensor, 4> outputs_;
  absl::InlinedVector<std::shared_ptr<Var>, 4> output_refs_;  // sized on first set_output_ref
  std::unique_ptr<std::deque<Tensor>> extra_outputs_;  // created on first use
};

class OpKernel {
 public:
  explicit OpKernel(OpKernelConstruction* c) : name_(c->name()), op_(c->op()) {}
  virtual ~OpKernel() = default;
  OpKernel(const OpKernel&) = delete;
  OpKernel& operator=(const OpKernel&) = delete;

  virtual absl::Status Compute(OpKernelContext* c) const = 0;

  const std::string& name() const { return name_; }
  const std::string& op() const { return op_; }

 private:
  const std::string name_;
  const std::string op_;
};

}  // namespace tensord

#endif  // TENSORD_RUNTIME_FRAMEWORK_OP_KERNEL_H_
