// The Session implementation over one flat GraphDef: caches an ExecutionPlan per
// feed/fetch/target combination and owns the resources its runs share; the devices (and
// their thread pools) are borrowed.
#include <algorithm>
#include <map>
#include <memory>

#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "runtime/exec/executor.h"
#include "runtime/exec/session.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace {

class GraphSession : public Session {
 public:
  GraphSession(::tensorflow::GraphDef graph, const SessionOptions& options,
               std::shared_ptr<ResourceMgr> resources,
               std::shared_ptr<const ConstantTable> constants)
      : graph_(std::move(graph)),
        resources_(resources != nullptr ? std::move(resources)
                                         : std::make_shared<ResourceMgr>()),
        constants_(std::move(constants)) {
    DeviceSet& devices = DeviceSet::OrProcessDefault(options.devices);
    env_.resource_mgr = resources_.get();
    env_.devices = &devices;
    env_.inter_op_pool = devices.cpu()->inter_op_pool();
  }

  absl::Status Run(const std::vector<std::pair<std::string, Tensor>>& feeds,
                   const std::vector<std::string>& fetches,
                   const std::vector<std::string>& targets, const RunOptions& options,
                   std::vector<Tensor>* outputs) override {
    std::vector<std::string> feed_names;
    std::vector<Tensor> feed_values;
    for (const auto& [name, value] : feeds) {
      feed_names.push_back(name);
      feed_values.push_back(value);
    }
    TENSORD_ASSIGN_OR_RETURN(const ExecutionPlan* plan, GetPlan(feed_names, fetches, targets));
    return plan->Run(env_, std::move(feed_values), outputs, options.cancellation,
                     options.profile);
  }

  absl::Status Prepare(const std::vector<std::string>& feeds,
                       const std::vector<std::string>& fetches,
                       const std::vector<std::string>& targets) override {
    return GetPlan(feeds, fetches, targets).status();
  }

  size_t device_memory_bytes() const override { return device_constants_.bytes(); }

 private:
  absl::StatusOr<const ExecutionPlan*> GetPlan(const std::vector<std::string>& feeds,
                                               const std::vector<std::string>& fetches,
                                               const std::vector<std::string>& targets) {
    const std::string key = absl::StrJoin(feeds, ",") + "|" + absl::StrJoin(fetches, ",") + "|" +
                            absl::StrJoin(targets, ",");
    {
      absl::ReaderMutexLock lock(&mu_);
      auto it = plans_.find(key);
      if (it != plans_.end()) return it->second.get();
    }
    // Built outside the lock: kernel construction can be slow and other plans stay usable.
    TENSORD_ASSIGN_OR_RETURN(auto plan, ExecutionPlan::Build(graph_, feeds, fetches, targets,
                                                                  *env_.devices, constants_.get(),
                                                                  &device_constants_));
    absl::MutexLock lock(&mu_);
    auto& slot = plans_[key];
    if (slot == nullptr) slot = std::move(plan);
    return slot.get();
  }

  const ::tensorflow::GraphDef graph_;
  std::shared_ptr<ResourceMgr> resources_;
  std::shared_ptr<const ConstantTable> constants_;
  DeviceConstants device_constants_;  // shared by the plans
  ExecutionEnv env_;
  absl::Mutex mu_;
  std::map<std::string, std::unique_ptr<ExecutionPlan>> plans_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Session>> NewSession(
    ::tensorflow::GraphDef graph, const SessionOptions& options,
    std::shared_ptr<ResourceMgr> resources, std::shared_ptr<const ConstantTable> constants) {
  return std::unique_ptr<Session>(new GraphSession(std::move(graph), options,
                                                   std::move(resources), std::move(constants)));
}

}  // namespace tensord
