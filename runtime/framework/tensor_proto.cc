#include "runtime/framework/tensor_proto.h"

#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace {

using ::tensorflow::TensorProto;

// Copies `values` (a repeated proto field) into dst, repeating the last value to fill n.
template <typename Dst, typename Field, typename Convert>
absl::Status FillFromField(const Field& values, int64_t n, Dst* dst, Convert convert,
                           DataType dtype) {
  const int64_t given = values.size();
  if (given > n) {
    return absl::InvalidArgumentError(absl::StrCat("TensorProto of ", DataTypeString(dtype),
                                                   " has ", given, " values for ", n,
                                                   " elements"));
  }
  for (int64_t i = 0; i < given; ++i) dst[i] = convert(values.Get(i));
  if (given > 0) {
    const Dst last = dst[given - 1];
    for (int64_t i = given; i < n; ++i) dst[i] = last;
  }
  return absl::OkStatus();
}

template <typename T>
T Identity(T v) {
  return v;
}

Eigen::half HalfFromBits(int bits) {
  return Eigen::numext::bit_cast<Eigen::half>(static_cast<uint16_t>(bits));
}
Eigen::bfloat16 BfloatFromBits(int bits) {
  return Eigen::numext::bit_cast<Eigen::bfloat16>(static_cast<uint16_t>(bits));
}

absl::Status FillTyped(const TensorProto& p, Tensor* t) {
  const int64_t n = t->NumElements();
  const DataType dt = t->dtype();
  switch (dt) {
    case DT_FLOAT:
      return FillFromField(p.float_val(), n, t->data<float>(), Identity<float>, dt);
    case DT_DOUBLE:
      return FillFromField(p.double_val(), n, t->data<double>(), Identity<double>, dt);
    case DT_INT32:
      return FillFromField(p.int_val(), n, t->data<int32_t>(), Identity<int32_t>, dt);
    case DT_INT16:
      return FillFromField(p.int_val(), n, t->data<int16_t>(),
                           [](int v) { return static_cast<int16_t>(v); }, dt);
    case DT_INT8:
      return FillFromField(p.int_val(), n, t->data<int8_t>(),
                           [](int v) { return static_cast<int8_t>(v); }, dt);
    case DT_UINT8:
      return FillFromField(p.int_val(), n, t->data<uint8_t>(),
                           [](int v) { return static_cast<uint8_t>(v); }, dt);
    case DT_UINT16:
      return FillFromField(p.int_val(), n, t->data<uint16_t>(),
                           [](int v) { return static_cast<uint16_t>(v); }, dt);
    case DT_INT64:
      return FillFromField(p.int64_val(), n, t->data<int64_t>(), Identity<int64_t>, dt);
    case DT_UINT32:
      return FillFromField(p.uint32_val(), n, t->data<uint32_t>(), Identity<uint32_t>, dt);
    case DT_UINT64:
      return FillFromField(p.uint64_val(), n, t->data<uint64_t>(), Identity<uint64_t>, dt);
    case DT_BOOL:
      return FillFromField(p.bool_val(), n, t->data<bool>(), Identity<bool>, dt);
    case DT_HALF:
      return FillFromField(p.half_val(), n, t->data<Eigen::half>(), HalfFromBits, dt);
    case DT_BFLOAT16:
      return FillFromField(p.half_val(), n, t->data<Eigen::bfloat16>(), BfloatFromBits, dt);
    case DT_STRING:
      return FillFromField(p.string_val(), n, t->data<std::string>(),
                           [](const std::string& s) { return s; }, dt);
    case DT_COMPLEX64: {
      if (p.scomplex_val_size() > 2 * n || p.scomplex_val_size() % 2 != 0) {
        return absl::InvalidArgumentError("TensorProto has a bad number of scomplex_val values");
      }
      auto* d = t->data<std::complex<float>>();
      const int64_t given = p.scomplex_val_size() / 2;
      for (int64_t i = 0; i < n; ++i) {
        const int64_t j = std::min(i, given - 1);
        d[i] = given == 0 ? std::complex<float>()
                          : std::complex<float>(p.scomplex_val(2 * j), p.scomplex_val(2 * j + 1));
      }
      return absl::OkStatus();
    }
    case DT_COMPLEX128: {
      if (p.dcomplex_val_size() > 2 * n || p.dcomplex_val_size() % 2 != 0) {
        return absl::InvalidArgumentError("TensorProto has a bad number of dcomplex_val values");
      }
      auto* d = t->data<std::complex<double>>();
      const int64_t given = p.dcomplex_val_size() / 2;
      for (int64_t i = 0; i < n; ++i) {
        const int64_t j = std::min(i, given - 1);
        d[i] = given == 0 ? std::complex<double>()
                          : std::complex<double>(p.dcomplex_val(2 * j), p.dcomplex_val(2 * j + 1));
      }
      return absl::OkStatus();
    }
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("unsupported tensor dtype ", DataTypeString(dt)));
  }
}

// String tensors packed into tensor_content: N varint32 lengths, then the bytes back to back.
absl::Status ParseStringContent(const std::string& content, Tensor* t) {
  const int64_t n = t->NumElements();
  size_t pos = 0;
  std::vector<uint32_t> lengths(n);
  for (int64_t i = 0; i < n; ++i) {
    uint32_t value = 0;
    int shift = 0;
    while (true) {
      if (pos >= content.size() || shift > 28) {
        return absl::InvalidArgumentError("TensorProto string tensor_content is truncated");
      }
      const uint8_t byte = static_cast<uint8_t>(content[pos++]);
      value |= static_cast<uint32_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) break;
      shift += 7;
    }
    lengths[i] = value;
  }
  for (int64_t i = 0; i < n; ++i) {
    if (content.size() - pos < lengths[i]) {
      return absl::InvalidArgumentError("TensorProto string tensor_content is truncated");
    }
    t->data<std::string>()[i] = content.substr(pos, lengths[i]);
    pos += lengths[i];
  }
  if (pos != content.size()) {
    return absl::InvalidArgumentError("TensorProto string tensor_content has trailing bytes");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Tensor> TensorFromProto(const TensorProto& proto) {
  const DataType dtype = proto.dtype();
  if (!IsSupportedTensorType(dtype) || dtype == DT_RESOURCE || dtype == DT_VARIANT) {
    return absl::InvalidArgumentError(
        absl::StrCat("unsupported tensor dtype ", DataTypeString(dtype)));
  }
  TENSORD_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::FromProto(proto.tensor_shape()));
  Tensor t(dtype, shape);
  if (!proto.tensor_content().empty() && dtype != DT_STRING) {
    const size_t expected = t.TotalBytes();
    if (proto.tensor_content().size() != expected) {
      return absl::InvalidArgumentError(absl::StrCat(
          "TensorProto tensor_content has ", proto.tensor_content().size(), " bytes; shape ",
          shape.DebugString(), " of ", DataTypeString(dtype), " needs ", expected));
    }
    if (expected > 0) std::memcpy(t.raw_data(), proto.tensor_content().data(), expected);
    return t;
  }
  if (!proto.tensor_content().empty()) {
    TENSORD_RETURN_IF_ERROR(ParseStringContent(proto.tensor_content(), &t));
    return t;
  }
  TENSORD_RETURN_IF_ERROR(FillTyped(proto, &t));
  return t;
}

void TensorToProto(const Tensor& t, TensorProto* proto, bool use_tensor_content) {
  proto->Clear();
  proto->set_dtype(t.dtype());
  t.shape().AsProto(proto->mutable_tensor_shape());
  const int64_t n = t.NumElements();
  if (t.dtype() == DT_STRING) {
    for (int64_t i = 0; i < n; ++i) proto->add_string_val(t.data<std::string>()[i]);
    return;
  }
  if (use_tensor_content) {
    proto->set_tensor_content(t.raw_data(), t.TotalBytes());
    return;
  }
  switch (t.dtype()) {
    case DT_FLOAT:
      for (int64_t i = 0; i < n; ++i) proto->add_float_val(t.data<float>()[i]);
      break;
    case DT_DOUBLE:
      for (int64_t i = 0; i < n; ++i) proto->add_double_val(t.data<double>()[i]);
      break;
    case DT_INT32:
      for (int64_t i = 0; i < n; ++i) proto->add_int_val(t.data<int32_t>()[i]);
      break;
    case DT_INT16:
      for (int64_t i = 0; i < n; ++i) proto->add_int_val(t.data<int16_t>()[i]);
      break;
    case DT_INT8:
      for (int64_t i = 0; i < n; ++i) proto->add_int_val(t.data<int8_t>()[i]);
      break;
    case DT_UINT8:
      for (int64_t i = 0; i < n; ++i) proto->add_int_val(t.data<uint8_t>()[i]);
      break;
    case DT_UINT16:
      for (int64_t i = 0; i < n; ++i) proto->add_int_val(t.data<uint16_t>()[i]);
      break;
    case DT_INT64:
      for (int64_t i = 0; i < n; ++i) proto->add_int64_val(t.data<int64_t>()[i]);
      break;
    case DT_UINT32:
      for (int64_t i = 0; i < n; ++i) proto->add_uint32_val(t.data<uint32_t>()[i]);
      break;
    case DT_UINT64:
      for (int64_t i = 0; i < n; ++i) proto->add_uint64_val(t.data<uint64_t>()[i]);
      break;
    case DT_BOOL:
      for (int64_t i = 0; i < n; ++i) proto->add_bool_val(t.data<bool>()[i]);
      break;
    case DT_HALF:
      for (int64_t i = 0; i < n; ++i) {
        proto->add_half_val(Eigen::numext::bit_cast<uint16_t>(t.data<Eigen::half>()[i]));
      }
      break;
    case DT_BFLOAT16:
      for (int64_t i = 0; i < n; ++i) {
        proto->add_half_val(Eigen::numext::bit_cast<uint16_t>(t.data<Eigen::bfloat16>()[i]));
      }
      break;
    case DT_COMPLEX64:
      for (int64_t i = 0; i < n; ++i) {
        proto->add_scomplex_val(t.data<std::complex<float>>()[i].real());
        proto->add_scomplex_val(t.data<std::complex<float>>()[i].imag());
      }
      break;
    case DT_COMPLEX128:
      for (int64_t i = 0; i < n; ++i) {
        proto->add_dcomplex_val(t.data<std::complex<double>>()[i].real());
        proto->add_dcomplex_val(t.data<std::complex<double>>()[i].imag());
      }
      break;
    default:
      proto->set_tensor_content(t.raw_data(), t.TotalBytes());
  }
}

}  // namespace tensord
