#include "server/batching/batch_queue.h"

#include <algorithm>
#include <memory>
#include <mutex>

#include "absl/strings/str_cat.h"

namespace tensord {
namespace {

// Joins the results of the pieces of a split request, in row order.
class PieceJoiner {
 public:
  PieceJoiner(int pieces, std::function<void(absl::StatusOr<TensorMap>)> done)
      : results_(pieces), remaining_(pieces), done_(std::move(done)) {}

  void Finish(int piece, absl::StatusOr<TensorMap> result) {
    std::unique_lock<std::mutex> lock(mu_);
    if (!result.ok() && status_.ok()) status_ = result.status();
    if (result.ok()) results_[piece] = *std::move(result);
    if (--remaining_ > 0) return;
    lock.unlock();
    if (!status_.ok()) {
      done_(status_);
    } else {
      done_(ConcatOutputs(results_));
    }
  }

 private:
  std::mutex mu_;
  std::vector<TensorMap> results_;
  int remaining_;
  absl::Status status_;
  std::function<void(absl::StatusOr<TensorMap>)> done_;
};

TensorMap SliceRows(const TensorMap& inputs, int64_t begin, int64_t end) {
  TensorMap out;
  for (const auto& [alias, tensor] : inputs) out.emplace(alias, tensor.Slice(begin, end));
  return out;
}

}  // namespace

BatchQueue::BatchQueue(std::string name, BatchingOptions options)
    : name_(std::move(name)), options_(std::move(options)) {}

absl::Status BatchQueue::Add(BatchTask task) {
  if (task.rows > options_.max_batch_size && !options_.enable_large_batch_splitting) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Batch size of the request (", task.rows, ") exceeds max_batch_size (",
        options_.max_batch_size, ") of ", name_,
        "; split the request or enable_large_batch_splitting"));
  }
  if (queued_rows_ + task.rows > options_.max_enqueued_batches * options_.max_batch_size) {
    return absl::UnavailableError(absl::StrCat("The batch queue of ", name_,
                                               " is full; retry later"));
  }
  queued_rows_ += task.rows;
  tasks_.push_back(std::move(task));
  return absl::OkStatus();
}

std::vector<BatchTask> BatchQueue::TakeExpired(absl::Time now) {
  std::vector<BatchTask> expired;
  for (auto it = tasks_.begin(); it != tasks_.end();) {
    if (it->deadline <= now) {
      queued_rows_ -= it->rows;
      expired.push_back(std::move(*it));
      it = tasks_.erase(it);
    } else {
      ++it;
    }
  }
  return expired;
}

void BatchQueue::SplitAt(size_t index, int64_t rows) {
  BatchTask whole = std::move(tasks_[index]);
  tasks_.erase(tasks_.begin() + index);
  auto joiner = std::make_shared<PieceJoiner>(2, std::move(whole.done));
  BatchTask rest;
  rest.inputs = SliceRows(whole.inputs, rows, whole.rows);
  rest.rows = whole.rows - rows;
  rest.enqueued = whole.enqueued;
  rest.deadline = whole.deadline;
  rest.waiter = whole.waiter;
  rest.done = [joiner](absl::StatusOr<TensorMap> r) { joiner->Finish(1, std::move(r)); };
  BatchTask first;
  first.inputs = SliceRows(whole.inputs, 0, rows);
  first.rows = rows;
  first.enqueued = whole.enqueued;
  first.deadline = whole.deadline;
  first.waiter = whole.waiter;
  first.done = [joiner](absl::StatusOr<TensorMap> r) { joiner->Finish(0, std::move(r)); };
  first.queued = whole.queued;  // the first piece's wait stands for the request's
  tasks_.insert(tasks_.begin() + index, std::move(rest));
  tasks_.insert(tasks_.begin() + index, std::move(first));
}

std::optional<Batch> BatchQueue::TakeReady(absl::Time now) {
  if (tasks_.empty()) return std::nullopt;
  const int64_t capacity = options_.max_execution_batch_size;
  int64_t rows = 0;
  size_t count = 0;
  bool full = false;
  while (count < tasks_.size()) {
    const BatchTask& task = tasks_[count];
    const bool mergeable =
        count == 0 || SameInnerShapes(tasks_[0].inputs, task.inputs) ||
        (options_.pad_variable_length_inputs && SameRanks(tasks_[0].inputs, task.inputs));
    if (!mergeable) {
      full = true;
      break;
    }
    if (rows + task.rows > capacity) {
      if (!options_.enable_large_batch_splitting) {
        full = true;
        break;
      }
      SplitAt(count, capacity - rows);  // its first rows fill this batch
      continue;
    }
    rows += task.rows;
    ++count;
    if (rows == capacity) {
      full = true;
      break;
    }
  }
  if (!full && now - tasks_.front().enqueued < options_.batch_timeout) return std::nullopt;
  Batch batch;
  batch.rows = rows;
  for (size_t i = 0; i < count; ++i) {
    queued_rows_ -= tasks_.front().rows;
    batch.tasks.push_back(std::move(tasks_.front()));
    tasks_.pop_front();
  }
  return batch;
}

absl::Time BatchQueue::ReadyTime() const {
  if (tasks_.empty()) return absl::InfiniteFuture();
  return tasks_.front().enqueued + options_.batch_timeout;
}

absl::Time BatchQueue::EarliestDeadline() const {
  absl::Time earliest = absl::InfiniteFuture();
  for (const BatchTask& task : tasks_) earliest = std::min(earliest, task.deadline);
  return earliest;
}

}  // namespace tensord
