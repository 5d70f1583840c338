// TensorShape: the dimensions of a dense tensor (all known, each >= 0).
// A value type; copy freely. Rank 0 is a scalar with one element.
#ifndef TENSORD_RUNTIME_FRAMEWORK_TENSOR_SHAPE_H_
#define TENSORD_RUNTIME_FRAMEWORK_TENSOR_SHAPE_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "protos/tensorflow/tensor_shape.pb.h"

namespace tensord {

class TensorShape {
 public:
  TensorShape() = default;
  TensorShape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  explicit TensorShape(absl::Span<const int64_t> dims) : dims_(dims.begin(), dims.end()) {}

  // Validates a wire shape: known rank, every dim >= 0, element count fits in int64.
  static absl::StatusOr<TensorShape> FromProto(const ::tensorflow::TensorShapeProto& proto);
  // Validates dims (each >= 0, product does not overflow).
  static absl::StatusOr<TensorShape> FromDims(absl::Span<const int64_t> dims);

  int dims() const { return static_cast<int>(dims_.size()); }
  int64_t dim_size(int i) const { return dims_[i]; }
  absl::Span<const int64_t> dim_sizes() const { return dims_; }
  int64_t num_elements() const;

  void AddDim(int64_t size) { dims_.push_back(size); }
  void InsertDim(int index, int64_t size) { dims_.insert(dims_.begin() + index, size); }
  void RemoveDim(int index) { dims_.erase(dims_.begin() + index); }
  void set_dim(int i, int64_t size) { dims_[i] = size; }

  bool operator==(const TensorShape& other) const { return dims_ == other.dims_; }
  bool operator!=(const TensorShape& other) const { return dims_ != other.dims_; }

  void AsProto(::tensorflow::TensorShapeProto* proto) const;
  std::string DebugString() const;  // "[2,3]"

 private:
  // Inline: shapes are copied with every tensor, and most have few dims.
  absl::InlinedVector<int64_t, 5> dims_;
};

// A shape from a graph or signature that may have unknown rank or unknown (-1) dims.
struct PartialShape {
  bool unknown_rank = true;
  std::vector<int64_t> dims;  // -1 = unknown

  static PartialShape FromProto(const ::tensorflow::TensorShapeProto& proto);
  bool IsCompatibleWith(const TensorShape& shape) const;
  bool IsFullyDefined() const;
  std::string DebugString() const;  // "[?,3]" or "<unknown>"
};

}  // namespace tensord

#endif  // TENSORD_RUNTIME_FRAMEWORK_TENSOR_SHAPE_H_
