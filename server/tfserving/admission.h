// Admission control: at most `max_in_flight` requests of one model run at a time, at most
// `max_queued` more wait for a slot, and the rest are refused at once with RESOURCE_EXHAUSTED
// (HTTP 429) naming the model and the flag, so that overload shows as fast refusals instead of
// latency that grows without bound. A waiting request whose deadline passes (or whose client
// goes away) leaves the queue with its token's status and never runs.
//
//   TENSORD_ASSIGN_OR_RETURN(Admission::Slot slot, admission.Admit("mlp", &token));
//   ... run ...   // the slot is released when `slot` goes
//
// Waiting requests take free slots in arrival order. Models are keyed by name; the caller
// admits only names of configured models, so the per-model state stays bounded. Thread-safe.
#ifndef TENSORD_SERVER_TFSERVING_ADMISSION_H_
#define TENSORD_SERVER_TFSERVING_ADMISSION_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
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

  // A slot for a request of `model`, after waiting in line when all are busy.
  // RESOURCE_EXHAUSTED when the line is full; the token's status (DEADLINE_EXCEEDED,
  // CANCELLED) when it fires while waiting. `token` may be null (wait without a deadline).
  absl::StatusOr<Slot> Admit(const std::string& model, const CancellationToken* token);

  const AdmissionOptions& options() const { return options_; }

 private:
  struct Model {
    int running = 0;
    std::deque<const void*> waiting;  // arrival order; each waiter's own address
    std::condition_variable freed;
  };
  void Release(Model* model);

  const AdmissionOptions options_;
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<Model>> models_;  // guarded by mu_, as are their fields
};

}  // namespace tensord

#endif  // TENSORD_SERVER_TFSERVING_ADMISSION_H_
