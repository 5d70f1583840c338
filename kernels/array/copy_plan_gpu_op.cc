#include "kernels/array/copy_plan_gpu_op.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/array/copy_plan_gpu.h"
#include "runtime/framework/device_memory.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace array {
namespace {

// Numbers only: what lives in device memory is copied as words of its size.
absl::Status CheckOnDevice(const OpKernelContext* c, const Tensor& t, const char* what) {
  if (DeviceOf(t) != &GpuOf(c)) {
    return absl::InternalError(
        absl::StrCat(c->node_name(), ": the ", what, " is not in ", GpuOf(c).name(), "'s memory"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ExecuteCopyPlanOnGpu(const OpKernelContext* c, const CopyPlan& plan,
                                  const Tensor& src, Tensor* dst) {
  GpuDevice& device = GpuOf(c);
  TENSORD_RETURN_IF_ERROR(CheckOnDevice(c, src, "source"));
  TENSORD_RETURN_IF_ERROR(CheckOnDevice(c, *dst, "destination"));
  GpuCopyLoops loops;
  loops.dst_base = plan.dst_base;
  std::optional<std::vector<LoopAxis>> axes = MergedLoops(plan, &loops.src_base);
  if (!axes.has_value()) return absl::OkStatus();
  if (axes->size() > static_cast<size_t>(GpuCopyLoops::kMaxRank)) {
    return c->InvalidArgument(absl::StrCat("this copy needs ", axes->size(),
                                           " nested loops; the GPU engine takes at most ",
                                           GpuCopyLoops::kMaxRank));
  }
  std::vector<int64_t> tables;
  int64_t num_elements = 1;
  loops.rank = static_cast<int>(axes->size());
  for (int k = 0; k < loops.rank; ++k) {
    const LoopAxis& axis = (*axes)[k];
    loops.sizes[k] = axis.size;
    loops.src_strides[k] = axis.src_stride;
    loops.dst_strides[k] = axis.dst_stride;
    loops.table_start[k] = axis.affine() ? -1 : static_cast<int64_t>(tables.size());
    if (!axis.affine()) tables.insert(tables.end(), axis.table->begin(), axis.table->end());
    num_elements *= axis.size;
  }
  // The offsets travel with the work: the device copy is freed once the kernel is queued,
  // and the stream-ordered allocator reuses it only for work queued after it.
  Tensor device_tables;
  if (!tables.empty()) {
    Tensor host(DT_INT64, TensorShape{static_cast<int64_t>(tables.size())});
    std::copy(tables.begin(), tables.end(), host.data<int64_t>());
    TENSORD_ASSIGN_OR_RETURN(device_tables, CopyTensorToDevice(host, &device));
  }
  return LaunchStatus(
      c->node_name(), device,
      LaunchGpuCopy(StreamOf(device), loops,
                    tables.empty() ? nullptr : device_tables.data<int64_t>(), src.raw_data(),
                    dst->raw_data(), DataTypeSize(src.dtype()), num_elements));
}

absl::Status FillTensorOnGpu(const OpKernelContext* c, const Tensor& value, Tensor* dst) {
  GpuDevice& device = GpuOf(c);
  TENSORD_RETURN_IF_ERROR(CheckOnDevice(c, *dst, "destination"));
  if (value.memory_space() != MemorySpace::kHost || value.NumElements() != 1) {
    return absl::InternalError(
        absl::StrCat(c->node_name(), ": the fill value must be one element in host memory"));
  }
  return LaunchStatus(c->node_name(), device,
                      LaunchGpuFill(StreamOf(device), value.raw_data(),
                                    DataTypeSize(dst->dtype()), dst->raw_data(),
                                    dst->NumElements()));
}

}  // namespace array
}  // namespace tensord
