// SignatureRunner: how a loaded version runs a signature for Predict when the plain
// SavedModelBundle::RunSignature is not used directly — e.g. through a batch queue.
//
// Implementations are thread-safe; a runner lives as long as the ServableHandles holding it.
#ifndef TENSORD_SERVER_MODEL_SIGNATURE_RUNNER_H_
#define TENSORD_SERVER_MODEL_SIGNATURE_RUNNER_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "runtime/exec/session.h"
#include "runtime/framework/tensor.h"

namespace tensord {

// What a run spent outside the graph.
struct RunStats {
  absl::Duration queued = absl::ZeroDuration();  // waiting for a batch
};

class SignatureRunner {
 public:
  virtual ~SignatureRunner() = default;
  // Same contract as SavedModelBundle::RunSignature; `stats` (may be null) receives where the
  // time went.
  virtual absl::StatusOr<std::map<std::string, Tensor>> Run(
      const std::string& signature_key, const std::map<std::string, Tensor>& inputs,
      const std::vector<std::string>& output_filter, const RunOptions& run_options,
      RunStats* stats) const = 0;
};

}  // namespace tensord

#endif  // TENSORD_SERVER_MODEL_SIGNATURE_RUNNER_H_
