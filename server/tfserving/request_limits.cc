#include "server/tfserving/request_limits.h"

#include "absl/strings/str_cat.h"
#include "runtime/framework/types.h"
#include "runtime/util/status_macros.h"
#include "server/status/request_too_large.h"

namespace tensord {

absl::Status RequestBudget::CheckInputCount(int64_t inputs) const {
  if (inputs > limits_.max_inputs) {
    return RequestTooLargeError(absl::StrCat("request has ", inputs,
                                             " inputs, more than the limit of ", limits_.max_inputs,
                                             " (--max_request_inputs)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Tensor> RequestBudget::Decode(const std::string& alias,
                                             const ::tensorflow::TensorProto& proto,
                                             const ::tensorflow::TensorInfo& info,
                                             const std::string& signature_name) {
  const auto named = [&](const absl::Status& s) {
    return absl::Status(s.code(), absl::StrCat("input '", alias, "': ", s.message()));
  };
  if (info.encoding_case() != ::tensorflow::TensorInfo::kName) {
    return absl::UnimplementedError(
        absl::StrCat("input '", alias, "' is a sparse or composite tensor"));
  }
  const DataType expected = BaseType(info.dtype());
  if (expected != DT_INVALID && proto.dtype() != expected) {
    return absl::InvalidArgumentError(
        absl::StrCat("input '", alias, "' of signature '", signature_name, "' expects ",
                     DataTypeString(expected), " but got ", DataTypeString(proto.dtype())));
  }
  absl::StatusOr<TensorProtoSize> size = MeasureTensorProto(proto);
  if (!size.ok()) return named(size.status());
  if (size->longest_string > limits_.max_string_bytes) {
    return RequestTooLargeError(
        absl::StrCat("input '", alias, "' has a string of ", size->longest_string,
                     " bytes, more than the limit of ", limits_.max_string_bytes,
                     " (--max_request_string_bytes)"));
  }
  // Both totals stay below the limits, which are int64, so the sums cannot overflow.
  if (size->elements > limits_.max_tensor_elements - elements_) {
    return RequestTooLargeError(absl::StrCat("input '", alias, "' of shape ",
                                             size->shape.DebugString(), " brings the request to ",
                                             "more than the limit of ", limits_.max_tensor_elements,
                                             " tensor elements (--max_request_tensor_elements)"));
  }
  if (size->bytes > limits_.max_tensor_bytes - bytes_) {
    return RequestTooLargeError(
        absl::StrCat("input '", alias, "' of shape ", size->shape.DebugString(), " needs ",
                     size->bytes, " bytes, which brings the request to more than the limit of ",
                     limits_.max_tensor_bytes, " bytes (--max_request_tensor_bytes)"));
  }
  elements_ += size->elements;
  bytes_ += size->bytes;
  absl::StatusOr<Tensor> tensor = TensorFromProto(proto, size->bytes);
  if (!tensor.ok()) return named(tensor.status());
  return tensor;
}

}  // namespace tensord
