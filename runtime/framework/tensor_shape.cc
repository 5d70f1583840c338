#include "runtime/framework/tensor_shape.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tensord {

int64_t TensorShape::num_elements() const {
  int64_t n = 1;
  for (int64_t d : dims_) n *= d;
  return n;
}

absl::StatusOr<TensorShape> TensorShape::FromDims(absl::Span<const int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "shape [", absl::StrJoin(dims, ","), "] has a negative dimension"));
    }
    if (d != 0 && n > INT64_MAX / d) {
      return absl::InvalidArgumentError(absl::StrCat(
          "shape [", absl::StrJoin(dims, ","), "] has too many elements"));
    }
    n *= d;
  }
  return TensorShape(std::vector<int64_t>(dims.begin(), dims.end()));
}

absl::StatusOr<TensorShape> TensorShape::FromProto(const ::tensorflow::TensorShapeProto& proto) {
  if (proto.unknown_rank()) {
    return absl::InvalidArgumentError("a tensor's shape must have known rank");
  }
  std::vector<int64_t> dims;
  dims.reserve(proto.dim_size());
  for (const auto& d : proto.dim()) dims.push_back(d.size());
  return FromDims(dims);
}

void TensorShape::AsProto(::tensorflow::TensorShapeProto* proto) const {
  proto->Clear();
  for (int64_t d : dims_) proto->add_dim()->set_size(d);
}

std::string TensorShape::DebugString() const {
  return absl::StrCat("[", absl::StrJoin(dims_, ","), "]");
}

PartialShape PartialShape::FromProto(const ::tensorflow::TensorShapeProto& proto) {
  PartialShape shape;
  shape.unknown_rank = proto.unknown_rank();
  if (!shape.unknown_rank) {
    for (const auto& d : proto.dim()) shape.dims.push_back(d.size() < 0 ? -1 : d.size());
  }
  return shape;
}

bool PartialShape::IsCompatibleWith(const TensorShape& shape) const {
  if (unknown_rank) return true;
  if (static_cast<int>(dims.size()) != shape.dims()) return false;
  for (int i = 0; i < shape.dims(); ++i) {
    if (dims[i] >= 0 && dims[i] != shape.dim_size(i)) return false;
  }
  return true;
}

bool PartialShape::IsFullyDefined() const {
  if (unknown_rank) return false;
  for (int64_t d : dims) {
    if (d < 0) return false;
  }
  return true;
}

std::string PartialShape::DebugString() const {
  if (unknown_rank) return "<unknown>";
  std::vector<std::string> parts;
  for (int64_t d : dims) parts.push_back(d < 0 ? "?" : std::to_string(d));
  return absl::StrCat("[", absl::StrJoin(parts, ","), "]");
}

}  // namespace tensord
