#include "runtime/framework/resource.h"

#include "absl/strings/str_cat.h"

namespace tensord {

std::string Var::DebugString() const {
  absl::MutexLock lock(&mu_);
  return absl::StrCat("Var<", DataTypeString(dtype_), ">",
                      initialized_ ? value_.shape().DebugString() : " uninitialized");
}

absl::StatusOr<Tensor> Var::Read(absl::string_view name) const {
  absl::MutexLock lock(&mu_);
  if (!initialized_) {
    return absl::FailedPreconditionError(
        absl::StrCat("Attempting to use uninitialized value ", name));
  }
  return value_;
}

void Var::Assign(Tensor value) {
  absl::MutexLock lock(&mu_);
  value_ = std::move(value);
  initialized_ = true;
}

absl::Status Var::Update(absl::string_view name,
                         const std::function<absl::Status(Tensor*)>& fn) {
  absl::MutexLock lock(&mu_);
  if (!initialized_) {
    return absl::FailedPreconditionError(
        absl::StrCat("Attempting to use uninitialized value ", name));
  }
  if (!value_.RefCountIsOne()) value_ = value_.DeepCopy();
  return fn(&value_);
}

bool Var::initialized() const {
  absl::MutexLock lock(&mu_);
  return initialized_;
}

}  // namespace tensord
