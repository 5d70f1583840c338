// BatchScheduler: one pool of batch threads shared by every batch queue of the server (TF
// Serving's shared batch scheduler). Threads take ready batches from the queues round-robin,
// so a busy model cannot starve the others; a batch is ready when full or when its oldest
// request has waited the queue's batch_timeout (timer driven: threads sleep until the earliest
// such time, not only until the next arrival). Requests whose deadline passes while queued are
// removed and answered DEADLINE_EXCEEDED without running.
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

  // Enqueues `task` (see BatchQueue::Add for the errors).
  absl::Status Schedule(Queue* queue, BatchTask task);

  int num_threads() const { return static_cast<int>(threads_.size()); }

 private:
  struct Entry;
  void Remove(Entry* entry);
  void Loop();

  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::shared_ptr<Entry>> entries_;  // guarded by mu_
  size_t next_ = 0;                              // round-robin start, guarded by mu_
  bool stop_ = false;                            // guarded by mu_
  std::vector<std::thread> threads_;
};

}  // namespace tensord

#endif  // TENSORD_SERVER_BATCHING_BATCH_SCHEDULER_H_
