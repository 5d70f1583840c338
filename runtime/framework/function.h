// Functions a control-flow kernel runs: the kernel API's view of the executor.
//
// The function inliner stores every function a node calls (If's and Case's branches, While's
// cond and body) flattened on the node. Whoever builds kernels (the executor) passes a
// FunctionLibrary to their construction, and a kernel instantiates its functions from there
// once, when it is constructed: an unsupported op inside a function fails the kernel's
// construction, naming the node. So kernels run subgraphs without depending on runtime/exec.
//
// Thread safety: a Function may be run concurrently (each run has its own frame); a
// FunctionLibrary is immutable and shared.
#ifndef TENSORD_RUNTIME_FRAMEWORK_FUNCTION_H_
#define TENSORD_RUNTIME_FRAMEWORK_FUNCTION_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/framework/tensor.h"

namespace tensord {

class OpKernelConstruction;
class OpKernelContext;

class Function {
 public:
  virtual ~Function() = default;

  virtual int num_args() const = 0;
  virtual int num_results() const = 0;

  // Runs the function on `args` for the kernel computing in `c`, with its resources, devices
  // and cancellation. The run executes on the calling thread (a kernel blocking an inter-op
  // thread on work queued behind it could deadlock the pool); kernels inside still use the
  // intra-op threads. Args moved in (a loop's variables from one iteration to the next) let
  // the function reuse their buffers.
  virtual absl::StatusOr<std::vector<Tensor>> Run(OpKernelContext* c,
                                                  std::vector<Tensor> args) const = 0;
};

class FunctionLibrary {
 public:
  virtual ~FunctionLibrary() = default;

  // The functions of function attr `attr` of the node under construction: one for a `func`
  // attr, one per function for a list (Case's branches). Errors name the node and the attr.
  virtual absl::StatusOr<std::vector<std::unique_ptr<Function>>> Instantiate(
      OpKernelConstruction* c, const std::string& attr) const = 0;
};

}  // namespace tensord

#endif  // TENSORD_RUNTIME_FRAMEWORK_FUNCTION_H_
