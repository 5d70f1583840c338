#include "runtime/framework/tensor_proto.h"

#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstring>
#include <string>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace {

using ::tensorflow::TensorProto;

// Copies `values` (a repeated proto field) into dst, repeating the last value to fill n.
// MeasureTensorProto has checked that there are at most n values.
template <typename Dst, typename Field, typename Convert>
void FillFromField(const Field& values, int64_t n, Dst* dst, Convert convert) {
  const int64_t given = values.size();
  for (int64_t i = 0; i < given; ++i) dst[i] = convert(values.Get(i));
  if (given > 0) {
    const Dst last = dst[given - 1];
    for (int64_t i = given; i < n; ++i) dst[i] = last;
  }
}

// Fills n complex elements from interleaved (real, imaginary) values, repeating the last pair.
template <typename T, typename Field>
void FillComplex(const Field& values, int64_t n, std::complex<T>* dst) {
  const int64_t given = values.size() / 2;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t j = std::min(i, given - 1);
    dst[i] =
        given == 0 ? std::complex<T>() : std::complex<T>(values.Get(2 * j), values.Get(2 * j + 1));
  }
}

// The number of values in the typed field that holds `dtype`; complex fields count pairs.
// -1 for dtypes without a typed field.
int64_t TypedValueCount(const TensorProto& p, DataType dtype) {
  switch (dtype) {
    case DT_FLOAT:
      return p.float_val_size();
    case DT_DOUBLE:
      return p.double_val_size();
    case DT_INT32:
    case DT_INT16:
    case DT_INT8:
    case DT_UINT8:
    case DT_UINT16:
      return p.int_val_size();
    case DT_INT64:
      return p.int64_val_size();
    case DT_UINT32:
      return p.uint32_val_size();
    case DT_UINT64:
      return p.uint64_val_size();
    case DT_BOOL:
      return p.bool_val_size();
    case DT_HALF:
    case DT_BFLOAT16:
      return p.half_val_size();
    case DT_STRING:
      return p.string_val_size();
    case DT_COMPLEX64:
      return p.scomplex_val_size() / 2;
    case DT_COMPLEX128:
      return p.dcomplex_val_size() / 2;
    default:
      return -1;
  }
}

// Reads one varint32 at *pos of `content`; false if truncated or longer than 5 bytes.
bool ReadVarint32(const std::string& content, size_t* pos, uint32_t* value) {
  *value = 0;
  for (int shift = 0; shift <= 28; shift += 7) {
    if (*pos >= content.size()) return false;
    const uint8_t byte = static_cast<uint8_t>(content[(*pos)++]);
    *value |= static_cast<uint32_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

bool AddOverflows(int64_t a, int64_t b, int64_t* sum) { return __builtin_add_overflow(a, b, sum); }
bool MulOverflows(int64_t a, int64_t b, int64_t* product) {
  return __builtin_mul_overflow(a, b, product);
}

absl::Status TooLarge(const TensorShape& shape, DataType dtype) {
  return absl::InvalidArgumentError(absl::StrCat("TensorProto of shape ", shape.DebugString(),
                                                 " of ", DataTypeString(dtype),
                                                 " is too large to represent"));
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

// MeasureTensorProto has accepted p's dtype and value count.
void FillTyped(const TensorProto& p, Tensor* t) {
  const int64_t n = t->NumElements();
  const DataType dt = t->dtype();
  switch (dt) {
    case DT_FLOAT:
      FillFromField(p.float_val(), n, t->data<float>(), Identity<float>);
      break;
    case DT_DOUBLE:
      FillFromField(p.double_val(), n, t->data<double>(), Identity<double>);
      break;
    case DT_INT32:
      FillFromField(p.int_val(), n, t->data<int32_t>(), Identity<int32_t>);
      break;
    case DT_INT16:
      FillFromField(p.int_val(), n, t->data<int16_t>(),
                    [](int v) { return static_cast<int16_t>(v); });
      break;
    case DT_INT8:
      FillFromField(p.int_val(), n, t->data<int8_t>(),
                    [](int v) { return static_cast<int8_t>(v); });
      break;
    case DT_UINT8:
      FillFromField(p.int_val(), n, t->data<uint8_t>(),
                    [](int v) { return static_cast<uint8_t>(v); });
      break;
    case DT_UINT16:
      FillFromField(p.int_val(), n, t->data<uint16_t>(),
                    [](int v) { return static_cast<uint16_t>(v); });
      break;
    case DT_INT64:
      FillFromField(p.int64_val(), n, t->data<int64_t>(), Identity<int64_t>);
      break;
    case DT_UINT32:
      FillFromField(p.uint32_val(), n, t->data<uint32_t>(), Identity<uint32_t>);
      break;
    case DT_UINT64:
      FillFromField(p.uint64_val(), n, t->data<uint64_t>(), Identity<uint64_t>);
      break;
    case DT_BOOL:
      FillFromField(p.bool_val(), n, t->data<bool>(), Identity<bool>);
      break;
    case DT_HALF:
      FillFromField(p.half_val(), n, t->data<Eigen::half>(), HalfFromBits);
      break;
    case DT_BFLOAT16:
      FillFromField(p.half_val(), n, t->data<Eigen::bfloat16>(), BfloatFromBits);
      break;
    case DT_STRING:
      FillFromField(p.string_val(), n, t->data<std::string>(),
                    [](const std::string& s) { return s; });
      break;
    case DT_COMPLEX64:
      FillComplex(p.scomplex_val(), n, t->data<std::complex<float>>());
      break;
    case DT_COMPLEX128:
      FillComplex(p.dcomplex_val(), n, t->data<std::complex<double>>());
      break;
    default:
      break;
  }
}

// String tensors packed into tensor_content: N varint32 lengths, then the bytes back to back.
// MeasureTensorProto has checked the framing.
void ParseStringContent(const std::string& content, Tensor* t) {
  const int64_t n = t->NumElements();
  uint32_t length = 0;
  size_t data_pos = 0;
  for (int64_t i = 0; i < n; ++i) ReadVarint32(content, &data_pos, &length);  // skip the lengths
  size_t length_pos = 0;
  for (int64_t i = 0; i < n; ++i) {
    ReadVarint32(content, &length_pos, &length);
    t->data<std::string>()[i].assign(content, data_pos, length);
    data_pos += length;
  }
}

// Measures a string tensor packed into tensor_content, checking its framing.
absl::Status MeasureStringContent(const std::string& content, TensorProtoSize* size) {
  // Every length takes at least one byte, so a count beyond the content is truncated before
  // any length is read.
  if (static_cast<uint64_t>(size->elements) > content.size()) {
    return absl::InvalidArgumentError("TensorProto string tensor_content is truncated");
  }
  size_t pos = 0;
  uint64_t total = 0;
  for (int64_t i = 0; i < size->elements; ++i) {
    uint32_t length = 0;
    if (!ReadVarint32(content, &pos, &length)) {
      return absl::InvalidArgumentError("TensorProto string tensor_content is truncated");
    }
    total += length;
    size->longest_string = std::max<int64_t>(size->longest_string, length);
  }
  if (content.size() - pos < total) {
    return absl::InvalidArgumentError("TensorProto string tensor_content is truncated");
  }
  if (content.size() - pos != total) {
    return absl::InvalidArgumentError("TensorProto string tensor_content has trailing bytes");
  }
  size->bytes += static_cast<int64_t>(total);  // below 2^63: it fits in the content
  return absl::OkStatus();
}

// Measures string_val: the given strings, then the last one repeated up to the element count.
absl::Status MeasureStringValues(const TensorProto& proto, TensorProtoSize* size) {
  const int64_t given = proto.string_val_size();
  for (const std::string& value : proto.string_val()) {
    size->bytes += static_cast<int64_t>(value.size());  // fits: the proto holds these bytes
    size->longest_string = std::max<int64_t>(size->longest_string, value.size());
  }
  if (given > 0 && given < size->elements) {
    const int64_t last = static_cast<int64_t>(proto.string_val(given - 1).size());
    int64_t repeated = 0;
    if (MulOverflows(size->elements - given, last, &repeated) ||
        AddOverflows(size->bytes, repeated, &size->bytes)) {
      return TooLarge(size->shape, DT_STRING);
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<TensorProtoSize> MeasureTensorProto(const TensorProto& proto) {
  const DataType dtype = proto.dtype();
  if (!IsSupportedTensorType(dtype) || dtype == DT_RESOURCE || dtype == DT_VARIANT) {
    return absl::InvalidArgumentError(
        absl::StrCat("unsupported tensor dtype ", DataTypeString(dtype)));
  }
  TensorProtoSize size;
  TENSORD_ASSIGN_OR_RETURN(size.shape, TensorShape::FromProto(proto.tensor_shape()));
  size.elements = size.shape.num_elements();
  const int64_t element_size =
      dtype == DT_STRING ? static_cast<int64_t>(sizeof(std::string)) : DataTypeSize(dtype);
  if (MulOverflows(size.elements, element_size, &size.bytes)) {
    return TooLarge(size.shape, dtype);
  }
  const std::string& content = proto.tensor_content();
  if (!content.empty()) {
    if (dtype == DT_STRING) {
      TENSORD_RETURN_IF_ERROR(MeasureStringContent(content, &size));
    } else if (static_cast<uint64_t>(size.bytes) != content.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "TensorProto tensor_content has ", content.size(), " bytes; shape ",
          size.shape.DebugString(), " of ", DataTypeString(dtype), " needs ", size.bytes));
    }
    return size;
  }
  const int64_t given = TypedValueCount(proto, dtype);
  if (given < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("unsupported tensor dtype ", DataTypeString(dtype)));
  }
  const int complex_values = dtype == DT_COMPLEX64    ? proto.scomplex_val_size()
                             : dtype == DT_COMPLEX128 ? proto.dcomplex_val_size()
                                                      : 0;
  if (given > size.elements || complex_values % 2 != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "TensorProto of ", DataTypeString(dtype), " has ",
        complex_values != 0 ? complex_values : given, " values for ", size.elements, " elements"));
  }
  if (dtype == DT_STRING) TENSORD_RETURN_IF_ERROR(MeasureStringValues(proto, &size));
  return size;
}

absl::StatusOr<Tensor> TensorFromProto(const TensorProto& proto, int64_t max_bytes) {
  TENSORD_ASSIGN_OR_RETURN(TensorProtoSize size, MeasureTensorProto(proto));
  if (size.bytes > max_bytes) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "TensorProto of shape ", size.shape.DebugString(), " of ", DataTypeString(proto.dtype()),
        " needs ", size.bytes, " bytes, more than the limit of ", max_bytes));
  }
  Tensor t(proto.dtype(), std::move(size.shape));
  const std::string& content = proto.tensor_content();
  if (content.empty()) {
    FillTyped(proto, &t);
  } else if (proto.dtype() == DT_STRING) {
    ParseStringContent(content, &t);
  } else if (proto.dtype() == DT_BOOL) {
    // Any non-zero byte is true: a bool holding a byte other than 0 or 1 is undefined behaviour.
    uint8_t* out = static_cast<uint8_t*>(t.raw_data());
    for (size_t i = 0; i < content.size(); ++i) out[i] = content[i] != 0 ? 1 : 0;
  } else {
    std::memcpy(t.raw_data(), content.data(), content.size());
  }
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
