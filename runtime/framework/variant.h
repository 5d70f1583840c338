// Variant: the element type of DT_VARIANT tensors — an immutable value of any C++ type (a
// TensorList, for instance), shared by every copy of the tensor holding it.
//
// Kernels that "modify" a variant build a new value; values are never written in place, so
// tensors that share one may be read from any thread.
#ifndef TENSORD_RUNTIME_FRAMEWORK_VARIANT_H_
#define TENSORD_RUNTIME_FRAMEWORK_VARIANT_H_

#include <memory>
#include <typeinfo>

namespace tensord {

class Variant {
 public:
  Variant() = default;
  template <typename T>
  explicit Variant(std::shared_ptr<const T> value)
      : value_(std::move(value)), type_(&typeid(T)) {}

  // The value if it is a T, else null (also for an empty variant).
  template <typename T>
  const T* get() const {
    return type_ != nullptr && *type_ == typeid(T) ? static_cast<const T*>(value_.get())
                                                   : nullptr;
  }
  bool empty() const { return value_ == nullptr; }

 private:
  std::shared_ptr<const void> value_;
  const std::type_info* type_ = nullptr;
};

}  // namespace tensord

#endif  // TENSORD_RUNTIME_FRAMEWORK_VARIANT_H_
