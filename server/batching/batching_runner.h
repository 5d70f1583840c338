// BatchingRunner: Predict through batch queues for one loaded model version (TF Serving's
// batching session). Each (signature, output filter) gets a queue on the shared
// BatchScheduler; concurrent requests are concatenated along dim 0, padded to an allowed batch
// size, run once, and answered with zero-copy slices of the outputs.
//
// Requests that cannot be merged run directly instead: inputs without a common dim 0 (scalars),
// and signatures whose outputs turn out not to have the batch as dim 0 (found on the first
// batch, then remembered). Models with mutable state get no BatchingRunner at all (see
// MakeBatchingRunner). Classify/Regress do not come through here.
//
// Thread-safe. Destroying the runner removes its queues; that happens after the last request
// holding its ServableHandle returned, so the queues are empty by then.
#ifndef TENSORD_SERVER_BATCHING_BATCHING_RUNNER_H_
#define TENSORD_SERVER_BATCHING_BATCHING_RUNNER_H_

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "server/batching/batch_scheduler.h"
#include "server/batching/batching_options.h"
#include "server/metrics/serving_metrics.h"
#include "server/model/model_manager.h"
#include "server/model/signature_runner.h"

namespace tensord {

class BatchingRunner : public SignatureRunner {
 public:
  // `scheduler` must outlive the runner; `metrics` may be null.
  BatchingRunner(const ServableHandle& handle, BatchScheduler* scheduler,
                 BatchingOptions options, ServingMetrics* metrics);

  absl::StatusOr<std::map<std::string, Tensor>> Run(
      const std::string& signature_key, const std::map<std::string, Tensor>& inputs,
      const std::vector<std::string>& output_filter, const RunOptions& run_options,
      RunStats* stats) const override;

 private:
  struct Key {
    std::string signature;
    std::vector<std::string> output_filter;
    bool operator<(const Key& other) const {
      return std::tie(signature, output_filter) < std::tie(other.signature, other.output_filter);
    }
  };

  BatchScheduler::Queue* QueueFor(const Key& key) const;
  void Process(const Key& key, Batch batch) const;
  // Runs each task on its own (a signature found not to batch along dim 0).
  void RunAlone(const Key& key, Batch batch) const;

  const std::string model_;
  const std::string version_;
  const std::shared_ptr<const SavedModelBundle> bundle_;
  BatchScheduler* const scheduler_;
  const BatchingOptions options_;
  ServingMetrics* const metrics_;

  mutable std::mutex mu_;
  mutable std::map<Key, std::shared_ptr<BatchScheduler::Queue>> queues_;  // guarded by mu_
  mutable std::set<Key> unbatchable_;                                     // guarded by mu_
};

// A BatchingRunner for `handle`, or null when its model has mutable state (merging requests
// would change what each one observes, e.g. a counter).
std::shared_ptr<const SignatureRunner> MakeBatchingRunner(const ServableHandle& handle,
                                                          BatchScheduler* scheduler,
                                                          const BatchingOptions& options,
                                                          ServingMetrics* metrics);

}  // namespace tensord

#endif  // TENSORD_SERVER_BATCHING_BATCHING_RUNNER_H_
