#include "runtime/framework/dispatch_numeric.h"
#include "runtime/framework/types.h"

namespace tensord {

std::string DataTypeString(DataType dtype) {
  if (IsRefType(dtype)) return DataTypeString(BaseType(dtype)) + "_ref";
  switch (dtype) {
    case DT_INVALID: return "invalid";
    case DT_FLOAT: return "float";
    case DT_DOUBLE: return "double";
    case DT_HALF: return "half";
    case DT_BFLOAT16: return "bfloat16";
    case DT_INT8: return "int8";
    case DT_INT16: return "int16";
    case DT_INT32: return "int32";
    case DT_INT64: return "int64";
    case DT_UINT8: return "uint8";
    case DT_UINT16: return "uint16";
    case DT_UINT32: return "uint32";
    case DT_UINT64: return "uint64";
    case DT_BOOL: return "bool";
    case DT_STRING: return "string";
    case DT_COMPLEX64: return "complex64";
    case DT_COMPLEX128: return "complex128";
    case DT_RESOURCE: return "resource";
    case DT_VARIANT: return "variant";
    default: return "dtype_" + std::to_string(static_cast<int>(dtype));
  }
}

int DataTypeSize(DataType dtype) {
  int size = 0;
  DispatchNumeric(dtype, [&](auto tag) { size = sizeof(tag); });
  return size;
}

bool IsSupportedTensorType(DataType dtype) {
  return DataTypeSize(dtype) > 0 || dtype == DT_STRING || dtype == DT_RESOURCE ||
         dtype == DT_VARIANT;
}

// Reference dtypes are the base value plus 100 (types.proto).
// TensorFlow numbers each reference type as its base type + 100 (base types are below 100).
bool IsRefType(DataType dtype) {
  return static_cast<int>(dtype) > 100 && static_cast<int>(dtype) < 200;
}

DataType BaseType(DataType dtype) {
  return IsRefType(dtype) ? static_cast<DataType>(static_cast<int>(dtype) - 100) : dtype;
}

DataType MakeRefType(DataType dtype) {
  return IsRefType(dtype) ? dtype : static_cast<DataType>(static_cast<int>(dtype) + 100);
}

}  // namespace tensord
