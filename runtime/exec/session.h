// Session: runs (a pruned part of) one graph many times.
//
// Run(feeds, fetches, targets) computes the requested tensors ("node:index" or "node" = output
// 0) and runs the target nodes, feeding the given tensors in place of graph outputs. Execution
// plans are built on first use of a feed/fetch/target combination and cached. Variables and
// other resources live in the session's ResourceMgr and persist across runs.
//
// Thread safety: Run may be called concurrently from many threads.
#ifndef TENSORD_RUNTIME_EXEC_SESSION_H_
#define TENSORD_RUNTIME_EXEC_SESSION_H_

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "protos/tensorflow/graph.pb.h"
#include "runtime/exec/op_profile.h"
#include "runtime/framework/cancellation.h"
#include "runtime/framework/device_set.h"
#include "runtime/framework/resource.h"
#include "runtime/framework/tensor.h"

namespace tensord {

struct SessionOptions {
  // The devices the session runs on, borrowed: must outlive the session. Null: the process's
  // default set (DeviceSet::ProcessDefault()). Sessions given the same set share its thread
  // pools.
  DeviceSet* devices = nullptr;
};

// Per-run settings.
struct RunOptions {
  // Stops the run early (DEADLINE_EXCEEDED / CANCELLED) when it fires; null = never. Not owned.
  const CancellationToken* cancellation = nullptr;
  // Collects the time of every kernel the run computes, per op type; null = not timed (the
  // default costs nothing). Not owned; may be shared by concurrent runs.
  OpProfile* profile = nullptr;
};

class Session {
 public:
  virtual ~Session() = default;

  absl::Status Run(const std::vector<std::pair<std::string, Tensor>>& feeds,
                   const std::vector<std::string>& fetches,
                   const std::vector<std::string>& targets, std::vector<Tensor>* outputs) {
    return Run(feeds, fetches, targets, RunOptions(), outputs);
  }
  virtual absl::Status Run(const std::vector<std::pair<std::string, Tensor>>& feeds,
                           const std::vector<std::string>& fetches,
                           const std::vector<std::string>& targets, const RunOptions& options,
                           std::vector<Tensor>* outputs) = 0;

  // Builds and keeps what Run needs for this feed/fetch/target combination (its plan and
  // kernels, its constants copied to the GPUs its nodes run on) without running anything.
  // Errors are those Run would give for the same names.
  virtual absl::Status Prepare(const std::vector<std::string>& feeds,
                               const std::vector<std::string>& fetches,
                               const std::vector<std::string>& targets) = 0;

  // Bytes of accelerator memory the session keeps between runs: its constants (the model's
  // weights) copied to the GPUs its nodes run on. 0 when everything runs on the CPU.
  virtual size_t device_memory_bytes() const = 0;
};

// Precomputed outputs of nodes, keyed by node name: such a node runs no kernel and yields these
// tensors (frozen variables, folded constants). The tensors share buffers with their source.
using ConstantTable = absl::flat_hash_map<std::string, std::vector<Tensor>>;

// Creates a session over `graph`, which must have no function calls left to inline
// (see runtime/graph/function_inliner.h). Kernels are created lazily, per plan.
// `resources` may be shared with another session over a graph with the same variables, so
// state restored by one is visible to the other; null creates a fresh one. `constants` may be
// null.
absl::StatusOr<std::unique_ptr<Session>> NewSession(
    ::tensorflow::GraphDef graph, const SessionOptions& options,
    std::shared_ptr<ResourceMgr> resources = nullptr,
    std::shared_ptr<const ConstantTable> constants = nullptr);

}  // namespace tensord

#endif  // TENSORD_RUNTIME_EXEC_SESSION_H_
