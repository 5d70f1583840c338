// Shared helpers for the array (data movement) kernels: the dtype lists they register for, a
// registration helper that loops over such a list, dispatch on an element's storage type, and
// readers for shape/axis/index inputs.
//
// Most array ops only move elements around, so they are written once over a "storage type" U
// that has the element's size and copy semantics (uint32_t for float and int32, std::string for
// strings, ...) instead of once per dtype:
//
//   TENSORD_RETURN_IF_ERROR(DispatchStorage(c, x.dtype(), [&](auto tag) {
//     using U = typename decltype(tag)::type;
//     std::copy_n(x.data<U>(), n, y->data<U>());
//   }));
//
// Registration for every dtype a tensor can hold:
//
//   TENSORD_REGISTER_KERNEL_FOR_TYPES(CpuDef("Identity"), "T", kAllValueTypes, IdentityOp);
#ifndef TENSORD_KERNELS_ARRAY_ARRAY_UTIL_H_
#define TENSORD_KERNELS_ARRAY_ARRAY_UTIL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/resource.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/types.h"

namespace tensord {
namespace array {

// Every dtype a Tensor can hold as a value (everything but resource handles).
inline constexpr DataType kAllValueTypes[] = {
    DT_FLOAT, DT_DOUBLE, DT_HALF,   DT_BFLOAT16, DT_INT8, DT_INT16,  DT_INT32,     DT_INT64,
    DT_UINT8, DT_UINT16, DT_UINT32, DT_UINT64,   DT_BOOL, DT_STRING, DT_COMPLEX64, DT_COMPLEX128};

// kAllValueTypes plus resource handles and variants (TensorLists), for pure pass-through ops
// (Identity).
inline constexpr DataType kPassThroughTypes[] = {
    DT_FLOAT, DT_DOUBLE, DT_HALF,      DT_BFLOAT16,   DT_INT8,     DT_INT16,
    DT_INT32, DT_INT64,  DT_UINT8,     DT_UINT16,     DT_UINT32,   DT_UINT64,
    DT_BOOL,  DT_STRING, DT_COMPLEX64, DT_COMPLEX128, DT_RESOURCE, DT_VARIANT};

// Numbers and bool (no strings): ops that need a typed value such as 1 or != 0.
inline constexpr DataType kNumericAndBoolTypes[] = {
    DT_FLOAT, DT_DOUBLE, DT_HALF,   DT_BFLOAT16, DT_INT8, DT_INT16,     DT_INT32,     DT_INT64,
    DT_UINT8, DT_UINT16, DT_UINT32, DT_UINT64,   DT_BOOL, DT_COMPLEX64, DT_COMPLEX128};

// KernelDef(op) on the CPU.
inline KernelDef CpuDef(const std::string& op) { return KernelDef(op).Device(DeviceType::kCpu); }

// KernelDef(op) on a GPU: for the kernels that only forward or re-describe a buffer, which
// touch no memory and so serve both devices with one class. Strings never live on a GPU.
inline KernelDef GpuDef(const std::string& op) { return KernelDef(op).Device(DeviceType::kGpu); }

// Registers `Kernel` once per dtype in `types`, each time constraining type attr `attr`.
template <typename Kernel>
bool RegisterKernelForTypes(const KernelDef& def, const std::string& attr,
                            absl::Span<const DataType> types) {
  for (DataType dtype : types) {
    KernelDef typed = def;
    typed.TypeConstraint(attr, dtype);
    KernelRegistry::Global().Register(std::move(typed), [](OpKernelConstruction* c) {
      return std::unique_ptr<OpKernel>(std::make_unique<Kernel>(c));
    });
  }
  return true;
}

#define TENSORD_REGISTER_KERNEL_FOR_TYPES(def, attr, types, ...) \
  TENSORD_REGISTER_KERNEL_FOR_TYPES_UNIQ_(__COUNTER__, def, attr, types, __VA_ARGS__)
#define TENSORD_REGISTER_KERNEL_FOR_TYPES_UNIQ_(ctr, def, attr, types, ...) \
  TENSORD_REGISTER_KERNEL_FOR_TYPES_UNIQ2_(ctr, def, attr, types, __VA_ARGS__)
#define TENSORD_REGISTER_KERNEL_FOR_TYPES_UNIQ2_(ctr, def, attr, types, ...) \
  static const bool tensord_array_registered_##ctr [[maybe_unused]] =        \
      ::tensord::array::RegisterKernelForTypes<__VA_ARGS__>(def, attr, types)

// Storage for 16-byte elements (complex128): copied as raw bytes.
struct Bytes16 {
  uint64_t lo, hi;
};

template <typename U>
struct StorageTag {
  using type = U;
};

// Calls fn(StorageTag<U>{}) with the storage type of `dtype`: std::string, ResourceHandle, or an
// unsigned integer / Bytes16 of the element's size. Unsupported dtypes are an error naming the
// node.
template <typename Fn>
absl::Status DispatchStorage(const OpKernelContext* c, DataType dtype, Fn&& fn);

// Reads a shape/axis/index input (int8/16/32/64 or uint8) as int64 values. `what` names it in
// errors. Accepts any rank; callers check the rank they need.
absl::StatusOr<std::vector<int64_t>> ReadIndexValues(const OpKernelContext* c, const Tensor& t,
                                                     const char* what);
// Like ReadIndexValues but requires a scalar.
absl::StatusOr<int64_t> ReadIndexScalar(const OpKernelContext* c, const Tensor& t,
                                        const char* what);

// A TensorShape from requested dims: "Dimension -1 must be >= 0" for negative dims, and an
// error when the element count overflows int64.
absl::StatusOr<TensorShape> MakeShape(const OpKernelContext* c, absl::Span<const int64_t> dims);

// Row-major strides (in elements) of `shape`.
std::vector<int64_t> RowMajorStrides(const TensorShape& shape);

// "[1,2,3]" for a list of values, as TensorFlow prints shapes and index tuples.
std::string BracketList(absl::Span<const int64_t> values);

// ---- implementation details follow ----

template <typename Fn>
absl::Status DispatchStorage(const OpKernelContext* c, DataType dtype, Fn&& fn) {
  switch (dtype) {
    case DT_STRING:
      fn(StorageTag<std::string>{});
      return absl::OkStatus();
    case DT_RESOURCE:
      fn(StorageTag<ResourceHandle>{});
      return absl::OkStatus();
    default:
      break;
  }
  switch (DataTypeSize(dtype)) {
    case 1:
      fn(StorageTag<uint8_t>{});
      return absl::OkStatus();
    case 2:
      fn(StorageTag<uint16_t>{});
      return absl::OkStatus();
    case 4:
      fn(StorageTag<uint32_t>{});
      return absl::OkStatus();
    case 8:
      fn(StorageTag<uint64_t>{});
      return absl::OkStatus();
    case 16:
      fn(StorageTag<Bytes16>{});
      return absl::OkStatus();
    default:
      return c->InvalidArgument("unsupported dtype " + DataTypeString(dtype));
  }
}

}  // namespace array
}  // namespace tensord

#endif  // TENSORD_KERNELS_ARRAY_ARRAY_UTIL_H_
