// ExecutionPlan and Executor: run a pruned graph once per call.
//
// A plan is built for one (feeds, fetches, targets) combination: it keeps only the backward
// closure of fetches and targets (stopping at fed tensors), creates each node's kernel, assigns
// every used output a slot, and precomputes dependency counts. It is immutable afterwards, so
// any number of runs may execute it concurrently; each run owns a fresh frame of slots.
//
// Execution is dataflow: a node runs once all its data and control inputs are done. The first
// ready successor runs inline on the current thread, other ready nodes go to the inter-op pool.
// Without an inter-op pool the nodes run in a topological order fixed when the plan is built.
// Either way a slot is released as soon as its last consumer has run, so peak memory follows
// the live set.
#ifndef TENSORD_RUNTIME_EXEC_EXECUTOR_H_
#define TENSORD_RUNTIME_EXEC_EXECUTOR_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "protos/tensorflow/graph.pb.h"
#include "runtime/framework/cancellation.h"
#include "runtime/framework/device_set.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/exec/device_constants.h"
#include "runtime/exec/op_profile.h"
#include "runtime/exec/session.h"
#include "runtime/framework/resource.h"

namespace tensord {

// Services shared by all runs of a session's plans. Not owned by the plan.
struct ExecutionEnv {
  ResourceMgr* resource_mgr = nullptr;
  // The devices the plans were built for (borrowed).
  const DeviceSet* devices = nullptr;
  // Runs independent nodes side by side; null runs everything on the caller's thread.
  Eigen::ThreadPoolInterface* inter_op_pool = nullptr;
};

class ExecutionPlan {
 public:
  // `graph` must outlive the plan (nodes are referenced, not copied). Nodes named in
  // `constants` (may be null) yield those tensors instead of running a kernel, and their
  // inputs are not needed. A node runs on the device its device string names when that
  // device is in `devices` and has a kernel for it (the placement pass wrote full names);
  // otherwise on the first device of the set that has one. `devices` must outlive the plan
  // and be the set of every ExecutionEnv the plan runs with. Copies of constants into device
  // memory are made once, at build, and kept in `device_constants` (shared by a session's plans;
  // it must outlive them), or by the plan itself when that is null.
  static absl::StatusOr<std::unique_ptr<ExecutionPlan>> Build(
      const ::tensorflow::GraphDef& graph, const std::vector<std::string>& feeds,
      const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
      const DeviceSet& devices, const ConstantTable* constants = nullptr,
      DeviceConstants* device_constants = nullptr);

  // Runs the plan. `feeds` are in the order given to Build. Outputs follow `fetches`, in host
  // memory (values a GPU computed are copied back, the run's one wait for its GPU work). A fired
  // `cancellation` (may be null) stops scheduling further nodes and returns its status. Feeds
  // passed by the caller's last reference (moved in) may have their buffers reused for outputs
  // inside the run; a caller that keeps a reference keeps its values. A `profile` (may be null)
  // gets the time of every kernel the run computes.
  absl::Status Run(const ExecutionEnv& env, std::vector<Tensor> feeds,
                   std::vector<Tensor>* outputs,
                   const CancellationToken* cancellation = nullptr,
                   OpProfile* profile = nullptr) const;

  ~ExecutionPlan();

  int num_nodes() const { return static_cast<int>(nodes_.size()); }

 private:
  struct Node {
    const ::tensorflow::NodeDef* def = nullptr;
    std::unique_ptr<OpKernel> kernel;
    const KernelRegistration* registration = nullptr;
    Device* device = nullptr;  // where it runs (see Build)
    std::vector<int> input_slots;   // one per data input
    std::vector<int> successors;    // one entry per in-edge of the successor
    int first_output_slot = 0;
    int num_outputs = 0;            // outputs with a slot
    std::vector<bool> outputs_read;  // per output: some consumer or fetch reads it
    // Sequential runs (below): per data input, whether this node is the last reader of the
    // value (so the kernel may take it over), and the slots to empty once it has run.
    std::vector<bool> last_read_in_sequence;
    std::vector<int> release_in_sequence;
    int num_in_edges = 0;           // data + control edges from nodes in the plan
    // Worth a trip to the inter-op pool when it becomes ready alongside others; cheap nodes
    // (constants, identities, shape ops) run inline, since the hand-off costs more than they do
    // and, with many concurrent runs sharing the pool, would queue behind other runs' work.
    bool expensive = true;
    // Its outputs are the same on every run (a Const or a folded constant): computed once into
    // constant_values_, never scheduled, and its consumers do not wait for it.
    bool constant = false;
  };

  struct Frame;
  // Runs the nodes in `ready` and everything they make ready, handing expensive extra ready
  // nodes to the inter-op pool.
  void Process(std::vector<int> ready, Frame* frame, const ExecutionEnv& env) const;
  // Runs every node on the calling thread in sequence_: for runs without an inter-op pool (a
  // loop body's steps), no dependency counting or hand-off at all.
  absl::Status RunSequence(Frame* frame, const ExecutionEnv& env) const;
  // The fetched values of a finished run, or its failure.
  absl::Status CollectOutputs(const Frame& frame, std::vector<Tensor>* outputs) const;
  absl::Status Compute(const Node& node, Frame* frame, const ExecutionEnv& env) const;

  std::vector<Node> nodes_;
  int num_slots_ = 0;
  std::vector<int> feed_slots_;
  std::vector<GpuDevice*> feed_devices_;  // per feed: the GPU its value must be copied to, or null
  std::vector<int> fetch_slots_;
  std::vector<std::string> fetch_names_;
  std::vector<int> slot_consumers_;  // data edges reading each slot (fetches hold theirs)
  std::vector<int> initial_ready_;
  std::vector<int> sequence_;              // the scheduled nodes in a topological order
  int num_scheduled_ = 0;                  // nodes that run (all but the constant ones)
  std::unique_ptr<DeviceConstants> own_device_constants_;  // when Build was given none
  std::vector<bool> constant_slot_;        // per slot: filled from constant_values_
  std::vector<Tensor> constant_values_;    // per slot, where constant_slot_
  // Frames of finished runs, kept for the next ones (concurrent runs take one each).
  static constexpr size_t kMaxSpareFrames = 4;
  mutable absl::Mutex spare_frames_mu_;
  mutable std::vector<std::unique_ptr<Frame>> spare_frames_ ABSL_GUARDED_BY(spare_frames_mu_);
};

}  // namespace tensord

#endif  // TENSORD_RUNTIME_EXEC_EXECUTOR_H_
