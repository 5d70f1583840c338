// Admission control: at most `max_in_flight` requests of one model run at a time, at most
// `max_queued` more wait for a slot, and the rest are refused at once with RESOURCE_EXHAUSTED
// (HTTP 429) naming the model and the flag, so that overload shows as fast refusals instead of
// latency that grows without bound. A waiting request whose deadline passes (or whose client
// goes away) leaves the queue with its token's status and never runs.
//
//   TENSORD_ASSIGN_OR_RETURN(Admission::Slot slot, admission.Admit("mlp", &token));
//   ... run ...   // the slot is released when `slot` goes
//
// A request that has no thread to wait on (a REST request read by an event loop) takes its place
// in line with Reserve and is given a slot in its turn, and told; its thread then takes the slot
// with Admit: one line per model, in arrival order, whatever the protocol, and no thread held
// while a request waits.
//
//   Admission::Ticket ticket = *admission.Reserve("mlp", [] { /* queue it for a worker */ });
//   ... on the worker, once told ...
//   TENSORD_ASSIGN_OR_RETURN(Admission::Slot slot, admission.Admit("mlp", &token, &ticket));
//
// Models are keyed by name; the caller admits only names of configured models, so the
// per-model state stays bounded. Thread-safe.
#ifndef TENSORD_SERVER_TFSERVING_ADMISSION_H_
#define TENSORD_SERVER_TFSERVING_ADMISSION_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/statusor.h"
#include "runtime/framework/cancellation.h"

namespace tensord {

struct AdmissionOptions {
  // Requests of one model running at once (--max_inflight_requests_per_model); 0 = no limit,
  // and Admit always succeeds at once.
  int max_in_flight = 0;
  // Further requests of one model that wait for a slot (--max_queued_requests_per_model);
  // 0 = none: a request that finds every slot busy is refused at once.
  int max_queued = 0;
};

class Admission {
 private:
  struct Model;
  struct Waiter;

 public:
  explicit Admission(AdmissionOptions options) : options_(options) {}
  Admission(const Admission&) = delete;
  Admission& operator=(const Admission&) = delete;

  // A running request's hold on its model's slot; releases it when destroyed. Must not
  // outlive the Admission.
  class Slot {
   public:
    Slot() = default;
    Slot(Slot&& other) noexcept : owner_(other.owner_), model_(other.model_) {
      other.owner_ = nullptr;
    }
    Slot& operator=(Slot&& other) noexcept;
    ~Slot();

   private:
    friend class Admission;
    Slot(Admission* owner, Model* model) : owner_(owner), model_(model) {}
    Admission* owner_ = nullptr;
    Model* model_ = nullptr;
  };

  // A place in a model's line taken by Reserve, then a slot once granted. Destroyed unused,
  // it leaves the line or releases its slot. Must not outlive the Admission. Empty
  // (default-constructed, and granted) when there is no limit.
  class Ticket {
   public:
    Ticket() = default;
    Ticket(Ticket&& other) noexcept;
    Ticket& operator=(Ticket&& other) noexcept;
    ~Ticket();
    // Whether a slot is this ticket's (Admit with it then returns at once).
    bool granted() const;

   private:
    friend class Admission;
    void Drop();
    Admission* owner_ = nullptr;
    Model* model_ = nullptr;
    std::string name_;
    // In model_->waiting until granted; then waiter_->granted, and the slot is counted.
    std::unique_ptr<Waiter> waiter_;
  };

  // A slot for a request of `model`, after waiting in line when all are busy.
  // RESOURCE_EXHAUSTED when the line is full; the token's status (DEADLINE_EXCEEDED,
  // CANCELLED) when it fires while waiting. `token` may be null (wait without a deadline).
  // With a `ticket` of `model` (used up either way): its slot at once when granted, else the
  // wait goes on from the ticket's place in line.
  absl::StatusOr<Slot> Admit(const std::string& model, const CancellationToken* token,
                             Ticket* ticket = nullptr);

  // A place in `model`'s line for a request that will call Admit when told to.
  // RESOURCE_EXHAUSTED when the model's requests running and waiting already number
  // max_in_flight + max_queued. `on_granted` runs once, when the ticket is given its slot:
  // before Reserve returns when a slot is free and nobody waits (or there is no limit), else
  // later on the thread that freed the slot. Either way with admission's lock held, so it must
  // be quick and must not call into this Admission (nor destroy the ticket). The slot is held
  // from then on, also while the request is prepared (a REST body parsed).
  absl::StatusOr<Ticket> Reserve(const std::string& model, std::function<void()> on_granted);

  const AdmissionOptions& options() const { return options_; }

 private:
  // A request in line: one whose thread waits in Admit (woken alone when the slot is its), or
  // a ticket's (given the slot, and on_granted run, when its turn comes).
  struct Waiter {
    bool claimed = false;  // a thread waits in Admit
    bool granted = false;  // a ticket's, given its slot
    std::function<void()> on_granted;
    std::condition_variable turn;
  };
  struct Model {
    int running = 0;
    std::deque<Waiter*> waiting;  // arrival order
  };
  Model* ModelLocked(const std::string& name);  // mu_ held
  absl::Status AtCapacity(const std::string& name, const Model& model) const;
  void Release(Model* model);
  // Hands free slots on in line order: grants tickets at the front, wakes a waiting thread at
  // the front; mu_ held.
  void GrantNext(Model* model);

  const AdmissionOptions options_;
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<Model>> models_;  // guarded by mu_, as are their fields
};

}  // namespace tensord

#endif  // TENSORD_SERVER_TFSERVING_ADMISSION_H_
