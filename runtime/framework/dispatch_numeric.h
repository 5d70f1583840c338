// DispatchNumeric: dtype-generic code written once over every fixed-size element type. In a
// header of its own because it needs Eigen's half and bfloat16 complete (Eigen/Core).
#ifndef TENSORD_RUNTIME_FRAMEWORK_DISPATCH_NUMERIC_H_
#define TENSORD_RUNTIME_FRAMEWORK_DISPATCH_NUMERIC_H_

#include <complex>
#include <cstdint>

#include "Eigen/Core"
#include "runtime/framework/types.h"

namespace tensord {

// Calls fn(T{}) with the C++ type of `dtype` for every fixed-size numeric or bool type.
// Returns false (without calling) for other dtypes. Used to write dtype-generic code once:
//   bool ok = DispatchNumeric(dtype, [&](auto tag) { using T = decltype(tag); ... });
template <typename Fn>
bool DispatchNumeric(DataType dtype, Fn&& fn) {
  switch (dtype) {
    case ::tensorflow::DT_FLOAT: fn(float{}); return true;
    case ::tensorflow::DT_DOUBLE: fn(double{}); return true;
    case ::tensorflow::DT_HALF: fn(Eigen::half{}); return true;
    case ::tensorflow::DT_BFLOAT16: fn(Eigen::bfloat16{}); return true;
    case ::tensorflow::DT_INT8: fn(int8_t{}); return true;
    case ::tensorflow::DT_INT16: fn(int16_t{}); return true;
    case ::tensorflow::DT_INT32: fn(int32_t{}); return true;
    case ::tensorflow::DT_INT64: fn(int64_t{}); return true;
    case ::tensorflow::DT_UINT8: fn(uint8_t{}); return true;
    case ::tensorflow::DT_UINT16: fn(uint16_t{}); return true;
    case ::tensorflow::DT_UINT32: fn(uint32_t{}); return true;
    case ::tensorflow::DT_UINT64: fn(uint64_t{}); return true;
    case ::tensorflow::DT_BOOL: fn(bool{}); return true;
    case ::tensorflow::DT_COMPLEX64: fn(std::complex<float>{}); return true;
    case ::tensorflow::DT_COMPLEX128: fn(std::complex<double>{}); return true;
    default: return false;
  }
}

}  // namespace tensord

#endif  // TENSORD_RUNTIME_FRAMEWORK_DISPATCH_NUMERIC_H_
