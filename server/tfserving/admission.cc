#include "server/tfserving/admission.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace tensord {

namespace {

// How often a waiting request checks its token (client cancellation is only seen by polling).
// Deadlines are waited for exactly. Each poll wakes a thread: under overload, with a line per
// model, shorter periods add thousands of wakeups a second to a saturated CPU.
constexpr absl::Duration kTokenPoll = absl::Milliseconds(20);

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

Admission::Ticket::Ticket(Ticket&& other) noexcept
    : owner_(other.owner_),
      model_(other.model_),
      name_(std::move(other.name_)),
      waiter_(std::move(other.waiter_)) {
  other.owner_ = nullptr;
}

Admission::Ticket& Admission::Ticket::operator=(Ticket&& other) noexcept {
  if (this != &other) {
    Drop();
    owner_ = other.owner_;
    model_ = other.model_;
    name_ = std::move(other.name_);
    waiter_ = std::move(other.waiter_);
    other.owner_ = nullptr;
  }
  return *this;
}

Admission::Ticket::~Ticket() { Drop(); }

bool Admission::Ticket::granted() const {
  if (owner_ == nullptr) return true;
  std::lock_guard<std::mutex> lock(owner_->mu_);
  return waiter_->granted;
}

void Admission::Ticket::Drop() {
  if (owner_ == nullptr) return;
  std::lock_guard<std::mutex> lock(owner_->mu_);
  if (waiter_->granted) {
    --model_->running;
  } else {
    auto& line = model_->waiting;
    line.erase(std::find(line.begin(), line.end(), waiter_.get()));
  }
  owner_->GrantNext(model_);
  owner_ = nullptr;
}

Admission::Model* Admission::ModelLocked(const std::string& name) {
  std::unique_ptr<Model>& entry = models_[name];
  if (entry == nullptr) entry = std::make_unique<Model>();
  return entry.get();
}

absl::Status Admission::AtCapacity(const std::string& name, const Model& model) const {
  return absl::ResourceExhaustedError(absl::StrCat(
      "model ", name, " is at capacity: ", model.running, " requests running (",
      "--max_inflight_requests_per_model=", options_.max_in_flight, ") and ",
      model.waiting.size(), " waiting (--max_queued_requests_per_model=", options_.max_queued,
      "); retry later"));
}

void Admission::Release(Model* model) {
  std::lock_guard<std::mutex> lock(mu_);
  --model->running;
  GrantNext(model);
}

void Admission::GrantNext(Model* model) {
  while (model->running < options_.max_in_flight && !model->waiting.empty()) {
    Waiter* next = model->waiting.front();
    if (next->claimed) {
      next->turn.notify_one();  // it takes the slot itself, then hands on what is left
      break;
    }
    model->waiting.pop_front();
    ++model->running;
    next->granted = true;
    if (next->on_granted) next->on_granted();
  }
}

absl::StatusOr<Admission::Ticket> Admission::Reserve(const std::string& name,
                                                     std::function<void()> on_granted) {
  if (options_.max_in_flight <= 0) {
    on_granted();
    return Ticket();
  }
  std::lock_guard<std::mutex> lock(mu_);
  Model* model = ModelLocked(name);
  if (model->running + static_cast<int64_t>(model->waiting.size()) >=
      int64_t{options_.max_in_flight} + options_.max_queued) {
    return AtCapacity(name, *model);
  }
  Ticket ticket;
  ticket.owner_ = this;
  ticket.model_ = model;
  ticket.name_ = name;
  ticket.waiter_ = std::make_unique<Waiter>();
  if (model->running < options_.max_in_flight && model->waiting.empty()) {
    ++model->running;
    ticket.waiter_->granted = true;
    on_granted();
  } else {
    ticket.waiter_->on_granted = std::move(on_granted);
    model->waiting.push_back(ticket.waiter_.get());
  }
  return ticket;
}

absl::StatusOr<Admission::Slot> Admission::Admit(const std::string& name,
                                                 const CancellationToken* token,
                                                 Ticket* ticket) {
  if (options_.max_in_flight <= 0) return Slot();
  Ticket held;
  if (ticket != nullptr) held = std::move(*ticket);
  // A ticket of another model is no place in this line (nor a slot of it).
  if (held.owner_ != nullptr && (held.owner_ != this || held.name_ != name)) held = Ticket();
  std::unique_lock<std::mutex> lock(mu_);
  Model* model = ModelLocked(name);
  Waiter own;
  Waiter* waiter = &own;
  if (held.owner_ != nullptr) {
    waiter = held.waiter_.get();
    held.owner_ = nullptr;  // its slot or place is this call's from here on
    if (waiter->granted) return Slot(this, model);
    waiter->on_granted = nullptr;  // its thread is here: it takes the slot itself
  } else {
    if (model->running < options_.max_in_flight && model->waiting.empty()) {
      ++model->running;
      return Slot(this, model);
    }
    if (static_cast<int64_t>(model->waiting.size()) >= options_.max_queued) {
      return AtCapacity(name, *model);
    }
    model->waiting.push_back(waiter);
  }
  waiter->claimed = true;
  const auto leave_line = [&] {
    model->waiting.erase(std::find(model->waiting.begin(), model->waiting.end(), waiter));
  };
  for (;;) {
    if (model->running < options_.max_in_flight && model->waiting.front() == waiter) {
      leave_line();
      ++model->running;
      GrantNext(model);  // the next in line may find a slot too
      return Slot(this, model);
    }
    if (token != nullptr) {
      lock.unlock();
      absl::Status status = token->Check();
      lock.lock();
      if (!status.ok()) {
        leave_line();
        GrantNext(model);  // the line moved
        return status;
      }
      // A release while the lock was dropped woke nobody waiting: look again before sleeping.
      if (model->running < options_.max_in_flight && model->waiting.front() == waiter) continue;
    }
    const absl::Time wake = token != nullptr ? std::min(token->deadline(), absl::Now() + kTokenPoll)
                                             : absl::InfiniteFuture();
    if (wake == absl::InfiniteFuture()) {
      waiter->turn.wait(lock);
    } else {
      waiter->turn.wait_until(lock, absl::ToChronoTime(wake));
    }
  }
}

}  // namespace tensord
