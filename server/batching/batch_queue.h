// BatchQueue: the requests waiting for one (model version, signature, output filter), and the
// rule for when the front of the queue forms a batch.
//
// A batch takes requests from the front while they fit (their dim-0 sizes add up to at most the
// execution batch size) and concatenate (same inner shapes, or same ranks with
// pad_variable_length_inputs). It is ready when it is full — the next request would not fit or
// has other shapes — or when its oldest request has waited batch_timeout. With
// enable_large_batch_splitting a request that does not fit is split: its first rows fill the
// batch, the rest stays at the front; the pieces' results are joined before the request is
// answered.
//
// No threads and no clock of its own: callers pass the time, so tests drive it explicitly. Not
// thread-safe; BatchScheduler serialises access.
#ifndef TENSORD_SERVER_BATCHING_BATCH_QUEUE_H_
#define TENSORD_SERVER_BATCHING_BATCH_QUEUE_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "server/batching/batch_merge.h"
#include "server/batching/batching_options.h"

namespace tensord {

// One request (or one piece of a split request).
struct BatchTask {
  TensorMap inputs;
  int64_t rows = 0;  // dim 0 of the inputs (BatchRows)
  absl::Time enqueued;
  absl::Time deadline = absl::InfiniteFuture();
  // Called exactly once, on whichever thread finishes the task, with its rows of the batch's
  // outputs or with the error.
  std::function<void(absl::StatusOr<TensorMap>)> done;
  // Receives the time the task waited for its batch, before `done` runs; may be null.
  absl::Duration* queued = nullptr;
  // The thread waiting for this task in BatchScheduler::Run, if any; it is woken when the task
  // reaches the front of the queue, to take over the queue's timeout.
  std::condition_variable* waiter = nullptr;
};

struct Batch {
  std::vector<BatchTask> tasks;
  int64_t rows = 0;
};

class BatchQueue {
 public:
  // `name` names the queue in errors (e.g. "model mlp version 1 signature serving_default").
  BatchQueue(std::string name, BatchingOptions options);

  // UNAVAILABLE when max_enqueued_batches batches' worth of rows are waiting; INVALID_ARGUMENT
  // for a request larger than max_batch_size when splitting is off.
  absl::Status Add(BatchTask task);

  // Removes and returns the tasks whose deadline is at or before `now`.
  std::vector<BatchTask> TakeExpired(absl::Time now);

  // The front batch if it is ready at `now`, else nullopt.
  std::optional<Batch> TakeReady(absl::Time now);

  // When the front batch becomes ready by its timeout; InfiniteFuture when empty. Earliest
  // deadline of the queued tasks, for waking up to expire them.
  absl::Time ReadyTime() const;
  absl::Time EarliestDeadline() const;

  // The oldest task, or null when empty.
  const BatchTask* front() const { return tasks_.empty() ? nullptr : &tasks_.front(); }
  int64_t queued_rows() const { return queued_rows_; }
  size_t size() const { return tasks_.size(); }
  const BatchingOptions& options() const { return options_; }

 private:
  // Replaces task `index` by its first `rows` rows and the rest; both pieces answer into the
  // original's `done`.
  void SplitAt(size_t index, int64_t rows);

  const std::string name_;
  const BatchingOptions options_;
  std::deque<BatchTask> tasks_;
  int64_t queued_rows_ = 0;
};

}  // namespace tensord

#endif  // TENSORD_SERVER_BATCHING_BATCH_QUEUE_H_
