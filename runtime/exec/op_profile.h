// OpProfile: where a run's time goes, per op type.
//
// A run given an OpProfile (RunOptions::profile) adds the wall time of every kernel it computes
// to the entry of the kernel's op type. Control-flow kernels (If, While, ...) count the whole
// time of their bodies; GPU kernels count the time to enqueue their work, not to finish it.
// Nodes answered from constants run no kernel and are not counted.
//
// Thread safety: Add and Entries may be called concurrently (a run computes independent nodes
// on several threads).
#ifndef TENSORD_RUNTIME_EXEC_OP_PROFILE_H_
#define TENSORD_RUNTIME_EXEC_OP_PROFILE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"

namespace tensord {

class OpProfile {
 public:
  struct Entry {
    std::string op;
    int64_t count = 0;     // kernels computed
    int64_t total_ns = 0;  // their summed wall time
  };

  void Add(const std::string& op, int64_t nanoseconds);

  // Every op type seen, the most total time first (ties by name).
  std::vector<Entry> Entries() const;

  // A table: op type, count, total ms, ms per run, share of the summed kernel time;
  // `runs` (>= 1) divides the totals.
  std::string Table(int runs) const;

 private:
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, Entry> entries_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tensord

#endif  // TENSORD_RUNTIME_EXEC_OP_PROFILE_H_
