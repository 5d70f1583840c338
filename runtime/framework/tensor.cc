#include "runtime/framework/tensor.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/framework/dispatch_numeric.h"
#include "runtime/framework/host_allocator.h"
#include "runtime/framework/resource.h"
#include "runtime/framework/variant.h"

namespace tensord {
namespace {

// Calls fn(T{}) for the dtypes whose elements are C++ objects with constructors and
// destructors; false for plain numbers.
template <typename Fn>
bool DispatchObject(DataType dtype, Fn&& fn) {
  switch (dtype) {
    case DT_STRING: fn(std::string()); return true;
    case DT_RESOURCE: fn(ResourceHandle()); return true;
    case DT_VARIANT: fn(Variant()); return true;
    default: return false;
  }
}

size_t ElementSize(DataType dtype) {
  size_t size = DataTypeSize(dtype);
  DispatchObject(dtype, [&](auto tag) { size = sizeof(tag); });
  return size;
}

// Host memory, 64-byte aligned for vectorised kernels; constructs non-trivial elements.
class HostBuffer : public TensorBuffer {
 public:
  static std::shared_ptr<HostBuffer> Create(DataType dtype, int64_t n, bool zero_numbers) {
    // A shape can hold up to 2^63 elements; their bytes may not fit in size_t. Decoders check
    // sizes before they get here, so this only stops a wrapped size from becoming a small
    // buffer that the caller then overruns.
    const size_t element_size = ElementSize(dtype);
    if (n < 0 || (element_size != 0 && static_cast<uint64_t>(n) > SIZE_MAX / element_size)) {
      throw std::bad_alloc();
    }
    size_t bytes = element_size * static_cast<size_t>(n);
    size_t capacity = 0;
    void* data = HostAllocator::Global().Allocate(bytes, &capacity);
    if (data == nullptr) throw std::bad_alloc();
    const bool objects = DispatchObject(dtype, [&](auto tag) {
      using T = decltype(tag);
      for (int64_t i = 0; i < n; ++i) new (static_cast<T*>(data) + i) T();
    });
    if (!objects && zero_numbers) std::memset(data, 0, bytes);
    return std::shared_ptr<HostBuffer>(new HostBuffer(data, bytes, capacity, dtype, n));
  }

  ~HostBuffer() override {
    DispatchObject(dtype_, [&](auto tag) {
      using T = decltype(tag);
      for (int64_t i = 0; i < n_; ++i) (static_cast<T*>(data()) + i)->~T();
    });
    HostAllocator::Global().Deallocate(data(), capacity_);
  }

  MemorySpace memory_space() const override { return MemorySpace::kHost; }

 private:
  HostBuffer(void* data, size_t size, size_t capacity, DataType dtype, int64_t n)
      : TensorBuffer(data, size), capacity_(capacity), dtype_(dtype), n_(n) {}
  size_t capacity_;
  DataType dtype_;
  int64_t n_;
};

}  // namespace

Tensor::Tensor(DataType dtype, TensorShape shape)
    : dtype_(dtype),
      shape_(std::move(shape)),
      buffer_(HostBuffer::Create(dtype, shape_.num_elements(), /*zero_numbers=*/true)) {}

Tensor Tensor::ForOverwrite(DataType dtype, TensorShape shape) {
  const int64_t n = shape.num_elements();
  return Tensor(dtype, std::move(shape), HostBuffer::Create(dtype, n, /*zero_numbers=*/false));
}

Tensor::Tensor(DataType dtype, TensorShape shape, std::shared_ptr<TensorBuffer> buffer)
    : dtype_(dtype), shape_(std::move(shape)), buffer_(std::move(buffer)) {}

size_t Tensor::TotalBytes() const { return ElementSize(dtype_) * NumElements(); }

MemorySpace Tensor::memory_space() const {
  return buffer_ == nullptr ? MemorySpace::kHost : buffer_->memory_space();
}

void* Tensor::raw_data() const {
  if (buffer_ == nullptr) return nullptr;
  return static_cast<char*>(buffer_->data()) + offset_;
}

Tensor Tensor::Slice(int64_t begin, int64_t end) const {
  Tensor out = *this;
  int64_t row_elements = shape_.dim_size(0) == 0 ? 0 : NumElements() / shape_.dim_size(0);
  out.shape_.set_dim(0, end - begin);
  out.offset_ = offset_ + ElementSize(dtype_) * row_elements * begin;
  return out;
}

absl::StatusOr<Tensor> Tensor::Reshaped(const TensorShape& shape) const {
  if (shape.num_elements() != NumElements()) {
    return absl::InvalidArgumentError(absl::StrCat("cannot reshape a tensor with ", NumElements(),
                                                   " elements to shape ", shape.DebugString()));
  }
  Tensor out = *this;
  out.shape_ = shape;
  return out;
}

Tensor Tensor::DeepCopy() const {
  if (!IsInitialized()) return Tensor();
  Tensor out(dtype_, shape_);
  const int64_t n = NumElements();
  const bool objects = DispatchObject(dtype_, [&](auto tag) {
    using T = decltype(tag);
    std::copy(data<T>(), data<T>() + n, out.data<T>());
  });
  if (!objects && n > 0) {
    std::memcpy(out.raw_data(), raw_data(), TotalBytes());
  }
  return out;
}

std::string Tensor::DebugString(int max_entries) const {
  if (!IsInitialized()) return "<uninitialized tensor>";
  std::vector<std::string> values;
  const int64_t n = std::min<int64_t>(NumElements(), max_entries);
  if (memory_space() == MemorySpace::kHost) {
    for (int64_t i = 0; i < n; ++i) {
      if (dtype_ == DT_STRING) {
        values.push_back(absl::StrCat("\"", data<std::string>()[i], "\""));
      } else if (dtype_ == DT_RESOURCE) {
        values.push_back(data<ResourceHandle>()[i].name());
      } else if (dtype_ == DT_VARIANT) {
        values.push_back(data<Variant>()[i].empty() ? "<empty variant>" : "<variant>");
      } else {
        DispatchNumeric(dtype_, [&](auto tag) {
          using T = decltype(tag);
          const T v = data<T>()[i];
          if constexpr (std::is_same_v<T, std::complex<float>> ||
                        std::is_same_v<T, std::complex<double>>) {
            values.push_back(absl::StrCat("(", v.real(), ",", v.imag(), ")"));
          } else if constexpr (std::is_same_v<T, Eigen::half> ||
                               std::is_same_v<T, Eigen::bfloat16>) {
            values.push_back(absl::StrCat(static_cast<float>(v)));
          } else {
            values.push_back(absl::StrCat(v));
          }
        });
      }
    }
    if (NumElements() > n) values.push_back("...");
  }
  return absl::StrCat(DataTypeString(dtype_), " ", shape_.DebugString(), " {",
                      absl::StrJoin(values, ", "), "}");
}

}  // namespace tensord
