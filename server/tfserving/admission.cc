#include "server/tfserving/admission.h"

#include <algorithm>
#include <chrono>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace tensord {

namespace {

// How often a waiting request checks its token (client cancellation is only seen by polling).
constexpr absl::Duration kTokenPoll = absl::Milliseconds(5);

}  // namespace

Admission::Slot& Admission::Slot::operator=(Slot&& other) noexcept {
  if (this != &other) {
    if (owner_ != nullptr) owner_->Release(model_);
    owner_ = other.owner_;
    model_ = other.model_;
    other.owner_ = nullptr;
  }
  return *this;
}

Admission::Slot::~Slot() {
  if (owner_ != nullptr) owner_->Release(model_);
}

void Admission::Release(Model* model) {
  std::lock_guard<std::mutex> lock(mu_);
  --model->running;
  model->freed.notify_all();
}

absl::StatusOr<Admission::Slot> Admission::Admit(const std::string& name,
                                                 const CancellationToken* token) {
  if (options_.max_in_flight <= 0) return Slot();
  std::unique_lock<std::mutex> lock(mu_);
  std::unique_ptr<Model>& entry = models_[name];
  if (entry == nullptr) entry = std::make_unique<Model>();
  Model* model = entry.get();
  if (model->running < options_.max_in_flight && model->waiting.empty()) {
    ++model->running;
    return Slot(this, model);
  }
  if (static_cast<int64_t>(model->waiting.size()) >= options_.max_queued) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "model ", name, " is at capacity: ", model->running, " requests running (",
        "--max_inflight_requests_per_model=", options_.max_in_flight, ") and ",
        model->waiting.size(), " waiting (--max_queued_requests_per_model=", options_.max_queued,
        "); retry later"));
  }
  const int marker = 0;  // identifies this waiter in the line
  model->waiting.push_back(&marker);
  for (;;) {
    if (model->waiting.front() == &marker && model->running < options_.max_in_flight) {
      model->waiting.pop_front();
      ++model->running;
      model->freed.notify_all();  // the next in line may find a slot too
      return Slot(this, model);
    }
    if (token != nullptr) {
      lock.unlock();
      absl::Status status = token->Check();
      lock.lock();
      if (!status.ok()) {
        model->waiting.erase(std::find(model->waiting.begin(), model->waiting.end(), &marker));
        model->freed.notify_all();  // the line moved
        return status;
      }
    }
    const absl::Time wake = token != nullptr ? std::min(token->deadline(), absl::Now() + kTokenPoll)
                                             : absl::InfiniteFuture();
    if (wake == absl::InfiniteFuture()) {
      model->freed.wait(lock);
    } else {
      model->freed.wait_until(lock, absl::ToChronoTime(wake));
    }
  }
}

}  // namespace tensord
