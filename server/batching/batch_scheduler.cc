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

BatchScheduler::BatchScheduler(int num_threads)
    : num_threads_(num_threads > 0 ? num_threads : AvailableCpus()) {
  for (int i = 0; i < num_threads_; ++i) threads_.emplace_back([this]() { Loop(); });
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

namespace {

// Batch timeouts are often a millisecond or less; Linux's default 50 µs timer slack on a
// thread's timed waits would be a visible share of that.
void UsePreciseTimers() {
  thread_local bool done = false;
  if (!done) {
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    done = true;
  }
}

// The leader sleeps until this long before its batch's timeout and then spins: waking a
// thread from an idle CPU costs tens of µs (more in VMs), which a lone request would pay on
// top of the timeout.
constexpr absl::Duration kSpinBeforeTimeout = absl::Microseconds(60);

}  // namespace

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

absl::StatusOr<TensorMap> BatchScheduler::Run(Queue* queue, BatchTask task) {
  UsePreciseTimers();
  Entry* entry = queue->entry();
  std::condition_variable wake;
  std::optional<absl::StatusOr<TensorMap>> answer;  // guarded by mu_
  task.waiter = &wake;
  task.done = [this, &wake, &answer](absl::StatusOr<TensorMap> result) {
    std::lock_guard<std::mutex> lock(mu_);
    answer = std::move(result);
    wake.notify_one();  // under mu_: `wake` lives until Run sees the answer
  };

  std::unique_lock<std::mutex> lock(mu_);
  if (absl::Status s = entry->queue.Add(std::move(task)); !s.ok()) return s;
  const size_t depth = entry->queue.size();
  // Batch threads time only queues whose oldest task has no waiting caller.
  const bool threads_needed = entry->queue.front()->waiter == nullptr;
  lock.unlock();
  if (entry->on_depth) entry->on_depth(depth);
  if (threads_needed) cv_.notify_one();
  lock.lock();

  while (!answer) {
    const absl::Time now = absl::Now();
    std::vector<BatchTask> expired = entry->queue.TakeExpired(now);
    std::optional<Batch> batch;
    if (running_ < num_threads()) batch = entry->queue.TakeReady(ReadyCutoff(now));
    if (!expired.empty() || batch) {
      Dispatch(lock, entry, std::move(expired), std::move(batch));
      continue;
    }
    const BatchTask* front = entry->queue.front();
    const absl::Time until = std::min(entry->queue.ReadyTime(), entry->queue.EarliestDeadline());
    if (front != nullptr && front->waiter == &wake && until > now) {
      if (until - now > kSpinBeforeTimeout) {
        wake.wait_until(lock, absl::ToChronoTime(until - kSpinBeforeTimeout));
      } else {
        lock.unlock();
        std::this_thread::yield();
        lock.lock();
      }
    } else {
      // Another thread owns the timeout, or every slot is busy: a batch thread takes the
      // ready batch when a slot frees.
      wake.wait(lock);
    }
  }
  return *std::move(answer);
}

void BatchScheduler::Flush() {
  std::lock_guard<std::mutex> lock(mu_);
  flushing_ = true;
  for (const auto& entry : entries_) WakeFront(*entry);
  cv_.notify_all();
}

absl::Time BatchScheduler::ReadyCutoff(absl::Time now) const {
  // A partial batch is ready once `now - enqueued` reaches its timeout; from the far future
  // every batch is.
  return flushing_ ? absl::InfiniteFuture() : now;
}

void BatchScheduler::WakeFront(const Entry& entry) {
  const BatchTask* front = entry.queue.front();
  if (front != nullptr && front->waiter != nullptr) front->waiter->notify_one();
}

void BatchScheduler::Dispatch(std::unique_lock<std::mutex>& lock, Entry* entry,
                              std::vector<BatchTask> expired, std::optional<Batch> batch) {
  WakeFront(*entry);
  const size_t depth = entry->queue.size();
  if (batch) ++running_;
  lock.unlock();
  if (entry->on_depth) entry->on_depth(depth);
  for (BatchTask& task : expired) {
    task.done(absl::DeadlineExceededError(
        "Deadline exceeded while the request waited in its batch queue"));
  }
  if (batch) entry->process(*std::move(batch));
  lock.lock();
  // A slot is free: only when all were busy can a ready batch be waiting for one (waking a
  // batch thread otherwise is a futile wake-up per batch).
  if (batch && running_-- == num_threads()) cv_.notify_one();
}

void BatchScheduler::Loop() {
  UsePreciseTimers();
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    const absl::Time now = absl::Now();
    // Holds the entry while its requests are answered: its queue may be removed as soon as
    // the last one is.
    std::shared_ptr<Entry> entry;
    std::vector<BatchTask> expired;
    std::optional<Batch> batch;
    for (const auto& e : entries_) {
      expired = e->queue.TakeExpired(now);
      if (!expired.empty()) {
        entry = e;
        break;
      }
    }
    for (size_t i = 0; !entry && running_ < num_threads() && i < entries_.size(); ++i) {
      const size_t index = (next_ + i) % entries_.size();
      batch = entries_[index]->queue.TakeReady(ReadyCutoff(now));
      if (batch) {
        entry = entries_[index];
        next_ = index + 1;
      }
    }
    if (entry) {
      Dispatch(lock, entry.get(), std::move(expired), std::move(batch));
      continue;
    }
    absl::Time wake = absl::InfiniteFuture();
    for (const auto& e : entries_) {
      const BatchTask* front = e->queue.front();
      if (front == nullptr || front->waiter != nullptr) continue;  // its caller keeps time
      wake = std::min({wake, e->queue.ReadyTime(), e->queue.EarliestDeadline()});
    }
    // A past wake-up time means a ready batch while every slot is busy: wait for a slot.
    if (wake == absl::InfiniteFuture() || wake <= now) {
      cv_.wait(lock);
    } else {
      cv_.wait_until(lock, absl::ToChronoTime(wake));
    }
  }
}

}  // namespace tensord
