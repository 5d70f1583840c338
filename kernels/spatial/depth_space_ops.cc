// SpaceToDepth and DepthToSpace (NHWC, the only layout TensorFlow supports on CPU).
//
// With block size s, a "space" tensor [N, H*s, W*s, C] and a "depth" tensor [N, H, W, s*s*C]
// hold the same values: depth[n, h, w, (dy*s + dx)*C + c] = space[n, h*s + dy, w*s + dx, c].
// For fixed (n, space row y, w) the s*C values are contiguous on both sides, so the kernels copy
// those chunks as bytes; one kernel serves every fixed-size dtype.
#include <cstring>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/parallel_for.h"
#include "runtime/framework/tensor_eigen.h"

namespace tensord {
namespace {

// kToDepth: SpaceToDepth; otherwise DepthToSpace.
template <bool kToDepth>
class DepthSpaceOp : public OpKernel {
 public:
  explicit DepthSpaceOp(OpKernelConstruction* c) : OpKernel(c) {
    c->GetAttr("block_size", &block_size_);
    std::string data_format = "NHWC";
    if (c->HasAttr("data_format")) c->GetAttr("data_format", &data_format);
    if (data_format != "NHWC") {
      c->SetError(absl::InvalidArgumentError(
          absl::StrCat(c->name(), ": Only NHWC data_format supported on CPU. Got ", data_format)));
    }
    if (block_size_ < 2) {
      c->SetError(absl::InvalidArgumentError(
          absl::StrCat(c->name(), ": Block size should be > 1, but was: ", block_size_)));
    }
  }

  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& input = c->input(0);
    if (input.dims() != 4) {
      return c->InvalidArgument(absl::StrCat("Input rank should be 4 instead of ", input.dims()));
    }
    const int64_t s = block_size_;
    const int64_t batch = input.dim_size(0);
    int64_t h, w, c_small;  // the depth side's H and W, and the space side's channels
    TensorShape out_shape;
    if (kToDepth) {
      if (input.dim_size(1) % s != 0 || input.dim_size(2) % s != 0) {
        return c->InvalidArgument(absl::StrCat("Image width ", input.dim_size(2), " and height ",
                                               input.dim_size(1),
                                               " should be divisible by block_size: ", s));
      }
      h = input.dim_size(1) / s;
      w = input.dim_size(2) / s;
      c_small = input.dim_size(3);
      out_shape = TensorShape{batch, h, w, c_small * s * s};
    } else {
      if (input.dim_size(3) % (s * s) != 0) {
        return c->InvalidArgument(absl::StrCat("Input depth dimension ", input.dim_size(3),
                                               " should be divisible by: ", s * s));
      }
      h = input.dim_size(1);
      w = input.dim_size(2);
      c_small = input.dim_size(3) / (s * s);
      out_shape = TensorShape{batch, h * s, w * s, c_small};
    }
    Tensor* output = c->allocate_output(0, input.dtype(), out_shape);
    if (output->NumElements() == 0) return absl::OkStatus();

    const size_t chunk_bytes = s * c_small * DataTypeSize(input.dtype());
    const char* in = static_cast<const char*>(input.raw_data());
    char* out = static_cast<char*>(output->raw_data());
    // One chunk per (n, space row, w): index = (n * H*s + y) * W + x.
    const int64_t chunks = batch * h * s * w;
    auto work = [&](Eigen::Index first, Eigen::Index last) {
      for (Eigen::Index i = first; i < last; ++i) {
        const int64_t x = i % w;
        const int64_t row = i / w;  // n * H*s + y
        const int64_t n = row / (h * s), y = row % (h * s);
        const int64_t space_chunk = row * w + x;  // chunks of s*C along the space row
        const int64_t depth_chunk = ((n * h + y / s) * w + x) * s + y % s;
        const int64_t from = kToDepth ? space_chunk : depth_chunk;
        const int64_t to = kToDepth ? depth_chunk : space_chunk;
        std::memcpy(out + to * chunk_bytes, in + from * chunk_bytes, chunk_bytes);
      }
    };
    ParallelFor(c->eigen_cpu_device(), chunks, Eigen::TensorOpCost(chunk_bytes, chunk_bytes, 8),
                work);
    return absl::OkStatus();
  }

 private:
  int64_t block_size_ = 0;
};

const bool kRegistered = [] {
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16, DT_INT8, DT_UINT8, DT_INT16,
                         DT_INT32, DT_INT64, DT_BOOL}) {
    KernelRegistry::Global().Register(
        KernelDef("SpaceToDepth").Device(DeviceType::kCpu).TypeConstraint("T", dtype),
        [](OpKernelConstruction* c) -> std::unique_ptr<OpKernel> {
          return std::make_unique<DepthSpaceOp<true>>(c);
        });
    KernelRegistry::Global().Register(
        KernelDef("DepthToSpace").Device(DeviceType::kCpu).TypeConstraint("T", dtype),
        [](OpKernelConstruction* c) -> std::unique_ptr<OpKernel> {
          return std::make_unique<DepthSpaceOp<false>>(c);
        });
  }
  return true;
}();

}  // namespace
}  // namespace tensord
