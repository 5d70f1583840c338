// Stateful objects that outlive one run: variables (TF1 ref variables and TF2 resource
// variables) and, later, lookup tables. They live in a ResourceMgr owned by the Session and are
// reached either through a DT_RESOURCE tensor holding a ResourceHandle, or through a reference
// edge (TF1 ops with *_ref inputs/outputs).
//
// Thread safety: ResourceMgr and Var are thread-safe; Var's mutex guards its value.
#ifndef TENSORD_RUNTIME_FRAMEWORK_RESOURCE_H_
#define TENSORD_RUNTIME_FRAMEWORK_RESOURCE_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <typeinfo>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "runtime/framework/tensor.h"

namespace tensord {

class ResourceBase {
 public:
  virtual ~ResourceBase() = default;
  virtual std::string DebugString() const = 0;
};

// A variable. `value` is replaced (not mutated) by assignments unless the variable holds the
// only reference to its buffer, so tensors handed out by Read() stay valid and unchanged.
class Var : public ResourceBase {
 public:
  explicit Var(DataType dtype) : dtype_(dtype) {}

  DataType dtype() const { return dtype_; }
  std::string DebugString() const override;

  // Fails with FAILED_PRECONDITION naming `name` when never assigned.
  absl::StatusOr<Tensor> Read(absl::string_view name) const;
  void Assign(Tensor value);
  // Runs fn on a tensor that the caller may mutate in place (copied first if shared).
  // Fails like Read when uninitialized.
  absl::Status Update(absl::string_view name, const std::function<absl::Status(Tensor*)>& fn);
  bool initialized() const;

 private:
  const DataType dtype_;
  mutable absl::Mutex mu_;
  Tensor value_;
  bool initialized_ = false;
};

// The value of a DT_RESOURCE tensor element.
class ResourceHandle {
 public:
  ResourceHandle() = default;
  ResourceHandle(std::string container, std::string name, std::shared_ptr<ResourceBase> resource)
      : container_(std::move(container)), name_(std::move(name)), resource_(std::move(resource)) {}

  const std::string& container() const { return container_; }
  const std::string& name() const { return name_; }
  const std::shared_ptr<ResourceBase>& resource() const { return resource_; }

 private:
  std::string container_;
  std::string name_;
  std::shared_ptr<ResourceBase> resource_;
};

// Named resources of one session, keyed by (container, name, type) as in TensorFlow, so a
// variable and a table may share a name.
class ResourceMgr {
 public:
  // Returns the existing resource (which must be of type T) or creates it with `make`.
  template <typename T>
  absl::StatusOr<std::shared_ptr<T>> LookupOrCreate(
      const std::string& container, const std::string& name,
      const std::function<std::shared_ptr<T>()>& make) {
    absl::MutexLock lock(&mu_);
    auto& slot = resources_[{container, name, typeid(T).name()}];
    if (slot == nullptr) slot = make();
    auto typed = std::dynamic_pointer_cast<T>(slot);
    if (typed == nullptr) {
      return absl::InternalError("resource '" + name + "' could not be created");
    }
    return typed;
  }

  // Forgets the resource; it is freed once the last handle to it goes.
  template <typename T>
  void Erase(const std::string& container, const std::string& name) {
    absl::MutexLock lock(&mu_);
    resources_.erase({container, name, typeid(T).name()});
  }

 private:
  absl::Mutex mu_;
  std::map<std::tuple<std::string, std::string, std::string>, std::shared_ptr<ResourceBase>>
      resources_;
};

}  // namespace tensord

#endif  // TENSORD_RUNTIME_FRAMEWORK_RESOURCE_H_
