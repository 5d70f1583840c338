#include "server/batching/batch_scheduler.h"

#include <sys/prctl.h>

#include <algorithm>

#include "absl/time/clock.h"
#include "runtime/framework/device.h"

namespace tensord {

struct BatchScheduler::Entry {
  Entry(std::string name, BatchingOptions options, ProcessFn process, DepthFn on_depth)
      : queue(std::move(name), std::move(options)),
        process(std::move(process)),
        on_depth(std::move(on_depth)) {}
  BatchQueue queue;
  const ProcessFn process;
  const DepthFn on_depth;
};

// The handle given to callers; removing it removes the entry.
class BatchScheduler::Queue {
 public:
  Queue(BatchScheduler* scheduler, Entry* entry) : scheduler_(scheduler), entry_(entry) {}
  ~Queue() { scheduler_->Remove(entry_); }
  Entry* entry() const { return entry_; }

 private:
  BatchScheduler* const scheduler_;
  Entry* const entry_;
};

BatchScheduler::BatchScheduler(int num_threads) {
  const int n = num_threads > 0 ? num_threads : AvailableCpus();
  for (int i = 0; i < n; ++i) {
    threads_.emplace_back([this]() {
      // Batch timeouts are often a millisecond or less; Linux's default 50 µs timer slack on
      // this thread's timed waits would be a visible share of that.
      prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
      Loop();
    });
  }
}

BatchScheduler::~BatchScheduler() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

std::shared_ptr<BatchScheduler::Queue> BatchScheduler::AddQueue(std::string name,
                                                                BatchingOptions options,
                                                                ProcessFn process,
                                                                DepthFn on_depth) {
  auto entry = std::make_shared<Entry>(std::move(name), std::move(options), std::move(process),
                                       std::move(on_depth));
  std::lock_guard<std::mutex> lock(mu_);
  entries_.push_back(entry);
  return std::make_shared<Queue>(this, entry.get());
}

void BatchScheduler::Remove(Entry* entry) {
  std::lock_guard<std::mutex> lock(mu_);
  entries_.erase(std::remove_if(entries_.begin(), entries_.end(),
                                [entry](const auto& e) { return e.get() == entry; }),
                 entries_.end());
}

absl::Status BatchScheduler::Schedule(Queue* queue, BatchTask task) {
  Entry* entry = queue->entry();
  size_t depth = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (absl::Status s = entry->queue.Add(std::move(task)); !s.ok()) return s;
    depth = entry->queue.size();
  }
  if (entry->on_depth) entry->on_depth(depth);
  cv_.notify_one();
  return absl::OkStatus();
}

void BatchScheduler::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    const absl::Time now = absl::Now();
    std::vector<BatchTask> expired;
    std::shared_ptr<Entry> ready_entry;
    std::optional<Batch> batch;
    for (const auto& entry : entries_) {
      for (BatchTask& task : entry->queue.TakeExpired(now)) expired.push_back(std::move(task));
    }
    for (size_t i = 0; i < entries_.size() && !batch; ++i) {
      const size_t index = (next_ + i) % entries_.size();
      batch = entries_[index]->queue.TakeReady(now);
      if (batch) {
        ready_entry = entries_[index];
        next_ = index + 1;
      }
    }
    if (!expired.empty() || batch) {
      const size_t depth = ready_entry != nullptr ? ready_entry->queue.size() : 0;
      lock.unlock();
      for (BatchTask& task : expired) {
        task.done(absl::DeadlineExceededError(
            "Deadline exceeded while the request waited in its batch queue"));
      }
      if (batch) {
        if (ready_entry->on_depth) ready_entry->on_depth(depth);
        ready_entry->process(*std::move(batch));
      }
      lock.lock();
      continue;
    }
    absl::Time wake = absl::InfiniteFuture();
    for (const auto& entry : entries_) {
      wake = std::min({wake, entry->queue.ReadyTime(), entry->queue.EarliestDeadline()});
    }
    if (wake == absl::InfiniteFuture()) {
      cv_.wait(lock);
    } else {
      cv_.wait_until(lock, absl::ToChronoTime(wake));
    }
  }
}

}  // namespace tensord
