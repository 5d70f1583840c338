// BatchScheduler: one pool of batch threads shared by every batch queue of the server (TF
// Serving's shared batch scheduler). Threads take ready batches from the queues round-robin,
// so a busy model cannot starve the others; a batch is ready when full or when its oldest
// request has waited the queue's batch_timeout (timer driven: threads sleep until the earliest
// such time, not only until the next arrival). Requests whose deadline passes while queued are
// removed and answered DEADLINE_EXCEEDED without running.
//
// Callers that wait for their answer (Run) help instead of sleeping on a hand-off: while its
// task is the oldest of its queue, the calling thread owns that queue's timeout and runs the
// batch itself when it is ready (the leader/follower pattern), so a lone request costs no
// wake-up of a batch thread and no hand-off back. At most num_threads batches run at a time,
// counting these callers; the batch threads take every other ready batch.
//
//   BatchScheduler scheduler(4);
//   auto queue = scheduler.AddQueue("model m version 1 signature s", options,
//                                   [](Batch batch) { ... run, then call each task's done ... });
//   TENSORD_RETURN_IF_ERROR(scheduler.Schedule(queue.get(), std::move(task)));
//   ...
//   queue.reset();   // removes the queue; it must be empty (every request answered)
//
// Thread-safe. The scheduler must outlive its queues.
#ifndef TENSORD_SERVER_BATCHING_BATCH_SCHEDULER_H_
#define TENSORD_SERVER_BATCHING_BATCH_SCHEDULER_H_

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "server/batching/batch_queue.h"

namespace tensord {

class BatchScheduler {
 public:
  // Runs one ready batch on a batch thread; must answer every task (call its done).
  using ProcessFn = std::function<void(Batch)>;
  // Reports the number of requests waiting in a queue after it changed.
  using DepthFn = std::function<void(size_t)>;

  // `num_threads` <= 0: the available CPUs.
  explicit BatchScheduler(int num_threads);
  ~BatchScheduler();
  BatchScheduler(const BatchScheduler&) = delete;
  BatchScheduler& operator=(const BatchScheduler&) = delete;

  class Queue;
  // The returned queue is removed from the scheduler when the last reference goes.
  std::shared_ptr<Queue> AddQueue(std::string name, BatchingOptions options, ProcessFn process,
                                  DepthFn on_depth = {});

  // Enqueues `task` (see BatchQueue::Add for the errors); its `done` is called later on some
  // batch thread or helping caller.
  absl::Status Schedule(Queue* queue, BatchTask task);

  // Enqueues `task` and returns its answer, running ready batches of `queue` on the calling
  // thread while it waits (see above). `task.done` and `task.waiter` are set here.
  absl::StatusOr<TensorMap> Run(Queue* queue, BatchTask task);

  // From now on a queued batch is ready at once, without waiting for its batch_timeout, so
  // that a draining server answers what is queued instead of waiting out the timers.
  // Irreversible.
  void Flush();

  int num_threads() const { return num_threads_; }

 private:
  struct Entry;
  void Remove(Entry* entry);
  void Loop();
  // Wakes the caller waiting for the new oldest task of `entry`, if any (under mu_).
  static void WakeFront(const Entry& entry);
  // The time TakeReady judges readiness at (under mu_).
  absl::Time ReadyCutoff(absl::Time now) const;
  // Answers expired tasks, reports the depth and runs the batch, then returns its slot (all
  // without mu_, which `lock` holds on entry and on return).
  void Dispatch(std::unique_lock<std::mutex>& lock, Entry* entry, std::vector<BatchTask> expired,
                std::optional<Batch> batch);

  const int num_threads_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::shared_ptr<Entry>> entries_;  // guarded by mu_
  size_t next_ = 0;                              // round-robin start, guarded by mu_
  bool stop_ = false;                            // guarded by mu_
  bool flushing_ = false;                        // guarded by mu_
  int running_ = 0;                              // batches being processed, guarded by mu_
  std::vector<std::thread> threads_;
};

}  // namespace tensord

#endif  // TENSORD_SERVER_BATCHING_BATCH_SCHEDULER_H_
