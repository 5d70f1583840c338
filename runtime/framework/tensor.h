// Tensor: a dtype, a shape and a reference-counted buffer.
//
// Copying a Tensor is cheap and shares the buffer. By convention a buffer is immutable once a
// tensor has been handed to another owner (a kernel output, a variable, a response); code that
// wants to write in place checks RefCountIsOne() first. Slice() views a range of dim 0 without
// copying, so element pointers are not guaranteed to be 64-byte aligned.
//
// Thread safety: distinct Tensor objects sharing one buffer may be used from different threads;
// a single Tensor object is not synchronised.
#ifndef TENSORD_RUNTIME_FRAMEWORK_TENSOR_H_
#define TENSORD_RUNTIME_FRAMEWORK_TENSOR_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "runtime/framework/tensor_shape.h"
#include "runtime/framework/types.h"

namespace tensord {

// Where a buffer's bytes live. Kernels registered for a device read and write that device's
// memory; host-memory arguments are always kHost.
enum class MemorySpace { kHost, kDevice };

// Owns the bytes of one or more tensors. Subclasses free device memory; the host buffer
// constructs and destroys non-trivial elements (strings, resource handles).
class TensorBuffer {
 public:
  virtual ~TensorBuffer() = default;
  void* data() const { return data_; }
  size_t size() const { return size_; }
  virtual MemorySpace memory_space() const = 0;

 protected:
  TensorBuffer(void* data, size_t size) : data_(data), size_(size) {}

 private:
  void* data_;
  size_t size_;
};

// Eigen views of tensor data, defined with Tensor's view accessors in tensor_eigen.h: only code
// that computes on elements through Eigen includes it, so the rest of the server does not
// compile Eigen's Tensor headers (several seconds per file).
template <typename T, int NDIMS = 1>
struct TTypes;

class Tensor {
 public:
  // An empty tensor: dtype DT_INVALID, not initialized.
  Tensor() = default;
  // Allocates host memory for `shape` elements; numbers are zero-filled, strings empty.
  Tensor(DataType dtype, TensorShape shape);
  // Like the constructor, but numbers are left unset: for code that writes every element
  // before anything reads the tensor (checkpoint reads, kernel outputs), sparing a pass over
  // the memory. Strings, resources and variants are still constructed.
  static Tensor ForOverwrite(DataType dtype, TensorShape shape);
  // Wraps an existing buffer (e.g. device memory). `buffer` must hold shape's bytes.
  Tensor(DataType dtype, TensorShape shape, std::shared_ptr<TensorBuffer> buffer);

  template <typename T>
  static Tensor Scalar(T value) {
    Tensor t(DataTypeToEnum<T>::value, TensorShape{});
    *t.data<T>() = std::move(value);
    return t;
  }

  bool IsInitialized() const { return dtype_ != DT_INVALID; }
  DataType dtype() const { return dtype_; }
  const TensorShape& shape() const { return shape_; }
  int dims() const { return shape_.dims(); }
  int64_t dim_size(int i) const { return shape_.dim_size(i); }
  int64_t NumElements() const { return shape_.num_elements(); }
  // Bytes of element storage (sizeof(std::string) per element for strings).
  size_t TotalBytes() const;
  MemorySpace memory_space() const;

  void* raw_data() const;
  template <typename T>
  T* data() const {
    return static_cast<T*>(raw_data());
  }

  // Eigen views (tensor_eigen.h).
  template <typename T>
  typename TTypes<T>::Flat flat() const;
  template <typename T, int NDIMS>
  typename TTypes<T, NDIMS>::Tensor tensor() const;
  // Views the tensor as [dim0 * ... * dim(k-1), rest] for k = split_dim.
  template <typename T>
  typename TTypes<T>::Matrix matrix_split_at(int split_dim) const;
  template <typename T>
  T& scalar() const {
    return *data<T>();
  }

  // Rows [begin, end) of dim 0, sharing the buffer. Requires dims() >= 1 and a valid range.
  Tensor Slice(int64_t begin, int64_t end) const;
  // Same buffer viewed with another shape of equal element count; fails otherwise.
  absl::StatusOr<Tensor> Reshaped(const TensorShape& shape) const;
  // A copy with its own host buffer.
  Tensor DeepCopy() const;

  // The buffer's owner object, or null for an empty tensor: device memory's buffer knows its
  // device (runtime/framework/device_memory.h).
  const TensorBuffer* buffer() const { return buffer_.get(); }

  bool RefCountIsOne() const { return buffer_ != nullptr && buffer_.use_count() == 1; }
  // Names the buffer without keeping it alive: caches keyed by buffer compare owners
  // (std::weak_ptr::owner_before), which stay distinct even after the buffer is freed.
  std::weak_ptr<const TensorBuffer> WeakBuffer() const { return buffer_; }
  bool SharesBufferWith(const Tensor& other) const {
    return buffer_ != nullptr && buffer_ == other.buffer_;
  }

  // "float [2,3] {1, 2, 3, ...}" with at most max_entries values.
  std::string DebugString(int max_entries = 8) const;

 private:
  DataType dtype_ = DT_INVALID;
  TensorShape shape_;
  std::shared_ptr<TensorBuffer> buffer_;
  size_t offset_ = 0;  // bytes into buffer_ (non-zero for slices)
};

}  // namespace tensord

#endif  // TENSORD_RUNTIME_FRAMEWORK_TENSOR_H_
