// DataType helpers: names, element sizes, and the mapping between C++ element types and the
// wire enum tensorflow::DataType (protos/tensorflow/types.proto).
//
// Element types: float, double, Eigen::half, Eigen::bfloat16, every integer width, bool,
// std::string (DT_STRING), ResourceHandle (DT_RESOURCE) and Variant (DT_VARIANT). Reference
// dtypes (DT_FLOAT_REF, ...) only describe graph edges; tensors never carry them (see BaseType).
#ifndef TENSORD_RUNTIME_FRAMEWORK_TYPES_H_
#define TENSORD_RUNTIME_FRAMEWORK_TYPES_H_

#include <complex>
#include <cstdint>
#include <string>

#include "protos/tensorflow/types.pb.h"

// Eigen's 16-bit floats, declared as Eigen itself declares them: only code that computes on
// them includes Eigen (dispatch_numeric.h does), which keeps Eigen's headers out of the many
// files that only name dtypes.
namespace Eigen {
struct half;
struct bfloat16;
}  // namespace Eigen

namespace tensord {

using DataType = ::tensorflow::DataType;
using ::tensorflow::DT_BFLOAT16;
using ::tensorflow::DT_BOOL;
using ::tensorflow::DT_COMPLEX128;
using ::tensorflow::DT_COMPLEX64;
using ::tensorflow::DT_DOUBLE;
using ::tensorflow::DT_FLOAT;
using ::tensorflow::DT_HALF;
using ::tensorflow::DT_INT16;
using ::tensorflow::DT_INT32;
using ::tensorflow::DT_INT64;
using ::tensorflow::DT_INT8;
using ::tensorflow::DT_INVALID;
using ::tensorflow::DT_RESOURCE;
using ::tensorflow::DT_STRING;
using ::tensorflow::DT_UINT16;
using ::tensorflow::DT_UINT32;
using ::tensorflow::DT_UINT64;
using ::tensorflow::DT_UINT8;
using ::tensorflow::DT_VARIANT;

class ResourceHandle;
class Variant;

// "float", "int32", "string", "float_ref", ... (TensorFlow's spelling).
std::string DataTypeString(DataType dtype);

// Size in bytes of one element, or 0 for types without a fixed-size representation
// (string, resource, variant) and for unsupported ones.
int DataTypeSize(DataType dtype);

// True for dtypes a Tensor can hold (numbers, bool, string, resource, variant).
bool IsSupportedTensorType(DataType dtype);

bool IsRefType(DataType dtype);
DataType BaseType(DataType dtype);  // DT_FLOAT_REF -> DT_FLOAT; others unchanged.
DataType MakeRefType(DataType dtype);

// Maps a C++ element type to its DataType: DataTypeToEnum<float>::value == DT_FLOAT.
template <typename T>
struct DataTypeToEnum;

#define TENSORD_MATCH_TYPE_AND_ENUM(TYPE, ENUM)   \
  template <>                                     \
  struct DataTypeToEnum<TYPE> {                   \
    static constexpr DataType value = ::tensorflow::ENUM; \
  }

TENSORD_MATCH_TYPE_AND_ENUM(float, DT_FLOAT);
TENSORD_MATCH_TYPE_AND_ENUM(double, DT_DOUBLE);
TENSORD_MATCH_TYPE_AND_ENUM(Eigen::half, DT_HALF);
TENSORD_MATCH_TYPE_AND_ENUM(Eigen::bfloat16, DT_BFLOAT16);
TENSORD_MATCH_TYPE_AND_ENUM(int8_t, DT_INT8);
TENSORD_MATCH_TYPE_AND_ENUM(int16_t, DT_INT16);
TENSORD_MATCH_TYPE_AND_ENUM(int32_t, DT_INT32);
TENSORD_MATCH_TYPE_AND_ENUM(int64_t, DT_INT64);
TENSORD_MATCH_TYPE_AND_ENUM(uint8_t, DT_UINT8);
TENSORD_MATCH_TYPE_AND_ENUM(uint16_t, DT_UINT16);
TENSORD_MATCH_TYPE_AND_ENUM(uint32_t, DT_UINT32);
TENSORD_MATCH_TYPE_AND_ENUM(uint64_t, DT_UINT64);
TENSORD_MATCH_TYPE_AND_ENUM(bool, DT_BOOL);
TENSORD_MATCH_TYPE_AND_ENUM(std::complex<float>, DT_COMPLEX64);
TENSORD_MATCH_TYPE_AND_ENUM(std::complex<double>, DT_COMPLEX128);
TENSORD_MATCH_TYPE_AND_ENUM(std::string, DT_STRING);
TENSORD_MATCH_TYPE_AND_ENUM(ResourceHandle, DT_RESOURCE);
TENSORD_MATCH_TYPE_AND_ENUM(Variant, DT_VARIANT);

#undef TENSORD_MATCH_TYPE_AND_ENUM

}  // namespace tensord

#endif  // TENSORD_RUNTIME_FRAMEWORK_TYPES_H_
