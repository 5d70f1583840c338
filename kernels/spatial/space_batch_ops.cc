// SpaceToBatchND(input, block_shape, paddings) and BatchToSpaceND(input, block_shape, crops).
//
// Both relate a "space" tensor [batch] + spatial[M] + rest and a "batch" tensor
// [batch * prod(block)] + (spatial / block)[M] + rest: batch-side row (ob, o_1..o_M) holds
// space-side row (b, o_j * block_j + k_j - start_j) where ob = (k_1..k_M flattened) * batch + b
// and start_j is the leading padding (crop). SpaceToBatchND writes the batch side (zeros where
// the space position is padding); BatchToSpaceND writes the space side (dropping cropped rows).
// Rows of `rest` elements are copied as bytes, so one kernel serves every fixed-size dtype.
#include <cstring>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/parallel_for.h"
#include "runtime/framework/tensor_eigen.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace {

absl::StatusOr<std::vector<int64_t>> IntValues(const OpKernelContext& c, const Tensor& t,
                                               const char* name) {
  std::vector<int64_t> values(t.NumElements());
  if (t.dtype() == DT_INT32) {
    for (size_t i = 0; i < values.size(); ++i) values[i] = t.data<int32_t>()[i];
  } else if (t.dtype() == DT_INT64) {
    for (size_t i = 0; i < values.size(); ++i) values[i] = t.data<int64_t>()[i];
  } else {
    return c.InvalidArgument(
        absl::StrCat(name, " must be int32 or int64, got ", DataTypeString(t.dtype())));
  }
  return values;
}

struct Geometry {
  int64_t space_batch = 0;
  std::vector<int64_t> block;       // M block sizes
  std::vector<int64_t> start;       // M leading paddings (crops)
  std::vector<int64_t> space_dims;  // M spatial dims of the space-side tensor
  std::vector<int64_t> batch_dims;  // M spatial dims of the batch-side tensor
  int64_t row_elements = 1;         // product of the dims after the spatial ones
};

// Copies between the space-side and batch-side buffers (`to_batch` picks the direction).
void CopyRows(const Geometry& g, size_t element_size, bool to_batch, char* space, char* batch,
              const Eigen::ThreadPoolDevice& device) {
  const int m = static_cast<int>(g.block.size());
  int64_t batch_positions = 1, space_positions = 1;
  for (int j = 0; j < m; ++j) {
    batch_positions *= g.batch_dims[j];
    space_positions *= g.space_dims[j];
  }
  int64_t num_blocks = 1;
  for (int64_t b : g.block) num_blocks *= b;
  const int64_t rows = g.space_batch * num_blocks * batch_positions;
  const size_t row_bytes = g.row_elements * element_size;
  auto work = [&](Eigen::Index first, Eigen::Index last) {
    std::vector<int64_t> pos(m);
    for (Eigen::Index r = first; r < last; ++r) {
      int64_t rest = r;
      for (int j = m - 1; j >= 0; --j) {
        pos[j] = rest % g.batch_dims[j];
        rest /= g.batch_dims[j];
      }
      const int64_t b = rest % g.space_batch;
      int64_t block_index = rest / g.space_batch;
      // Space position of every spatial coordinate, last one first (row-major block offsets).
      int64_t space_row = 0, stride = 1;
      bool inside = true;
      for (int j = m - 1; j >= 0; --j) {
        const int64_t k = block_index % g.block[j];
        block_index /= g.block[j];
        const int64_t i = pos[j] * g.block[j] + k - g.start[j];
        if (i < 0 || i >= g.space_dims[j]) inside = false;
        space_row += i * stride;
        stride *= g.space_dims[j];
      }
      char* batch_ptr = batch + r * row_bytes;
      if (!inside) {
        if (to_batch) std::memset(batch_ptr, 0, row_bytes);
        continue;
      }
      char* space_ptr = space + (b * space_positions + space_row) * row_bytes;
      if (to_batch) {
        std::memcpy(batch_ptr, space_ptr, row_bytes);
      } else {
        std::memcpy(space_ptr, batch_ptr, row_bytes);
      }
    }
  };
  ParallelFor(device, rows, Eigen::TensorOpCost(row_bytes, row_bytes, 4 * m), work);
}

// kToBatch: SpaceToBatchND (input 2 = paddings); otherwise BatchToSpaceND (input 2 = crops).
template <bool kToBatch>
class SpaceBatchOp : public OpKernel {
 public:
  explicit SpaceBatchOp(OpKernelConstruction* c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext* c) const override {
    const char* pads_name = kToBatch ? "paddings" : "crops";
    const Tensor& input = c->input(0);
    const Tensor& block_shape = c->input(1);
    const Tensor& pads = c->input(2);
    if (block_shape.dims() != 1) {
      return c->InvalidArgument(
          absl::StrCat("block_shape rank should be 1 instead of ", block_shape.dims()));
    }
    const int m = static_cast<int>(block_shape.dim_size(0));
    if (pads.dims() != 2 || pads.dim_size(0) != m || pads.dim_size(1) != 2) {
      return c->InvalidArgument(absl::StrCat(pads_name, " should have shape [", m,
                                             ", 2] instead of ", pads.shape().DebugString()));
    }
    if (input.dims() < 1 + m) {
      return c->InvalidArgument(
          absl::StrCat("input rank should be >= ", 1 + m, " instead of ", input.dims()));
    }
    TENSORD_ASSIGN_OR_RETURN(std::vector<int64_t> block, IntValues(*c, block_shape, "block_shape"));
    TENSORD_ASSIGN_OR_RETURN(std::vector<int64_t> pad, IntValues(*c, pads, pads_name));
    int64_t num_blocks = 1;
    for (int j = 0; j < m; ++j) {
      if (block[j] < 1) {
        return c->InvalidArgument(
            absl::StrCat("All values in block_shape must be positive, got "
                         "value, ",
                         block[j], " at index ", j, "."));
      }
      if (pad[2 * j] < 0 || pad[2 * j + 1] < 0) {
        return c->InvalidArgument(kToBatch ? "Paddings must be non-negative"
                                           : "Crops must be non-negative");
      }
      num_blocks *= block[j];
    }

    Geometry g;
    g.block = block;
    TensorShape out_shape = input.shape();
    for (int j = 0; j < m; ++j) {
      g.start.push_back(pad[2 * j]);
      const int64_t in_dim = input.dim_size(1 + j);
      int64_t out_dim;
      if (kToBatch) {
        const int64_t padded = in_dim + pad[2 * j] + pad[2 * j + 1];
        if (padded % block[j] != 0) {
          return c->InvalidArgument(absl::StrCat("padded_shape[", j, "]=", padded,
                                                 " is not divisible by block_shape[", j,
                                                 "]=", block[j]));
        }
        out_dim = padded / block[j];
        g.space_dims.push_back(in_dim);
        g.batch_dims.push_back(out_dim);
      } else {
        out_dim = in_dim * block[j] - pad[2 * j] - pad[2 * j + 1];
        if (out_dim < 0) {
          return c->InvalidArgument(
              absl::StrCat("cropped_shape[", j, "]=", out_dim, " must be non-negative"));
        }
        g.space_dims.push_back(out_dim);
        g.batch_dims.push_back(in_dim);
      }
      out_shape.set_dim(1 + j, out_dim);
    }
    const int64_t in_batch = input.dim_size(0);
    if (kToBatch) {
      g.space_batch = in_batch;
      out_shape.set_dim(0, in_batch * num_blocks);
    } else {
      if (in_batch % num_blocks != 0) {
        return c->InvalidArgument(absl::StrCat("Input batch dimension (", in_batch,
                                               ") is not divisible by product of block sizes (",
                                               num_blocks, ")"));
      }
      g.space_batch = in_batch / num_blocks;
      out_shape.set_dim(0, g.space_batch);
    }
    for (int d = 1 + m; d < input.dims(); ++d) g.row_elements *= input.dim_size(d);

    Tensor* output = c->allocate_output(0, input.dtype(), out_shape);
    if (output->NumElements() == 0) return absl::OkStatus();
    char* in = static_cast<char*>(input.raw_data());
    char* out = static_cast<char*>(output->raw_data());
    // CopyRows only reads from the input side.
    CopyRows(g, DataTypeSize(input.dtype()), kToBatch, kToBatch ? in : out, kToBatch ? out : in,
             c->eigen_cpu_device());
    return absl::OkStatus();
  }
};

void Register(DataType dtype) {
  KernelRegistry::Global().Register(KernelDef("SpaceToBatchND")
                                        .Device(DeviceType::kCpu)
                                        .TypeConstraint("T", dtype)
                                        .HostMemoryInput(1)
                                        .HostMemoryInput(2),
                                    [](OpKernelConstruction* c) -> std::unique_ptr<OpKernel> {
                                      return std::make_unique<SpaceBatchOp<true>>(c);
                                    });
  KernelRegistry::Global().Register(KernelDef("BatchToSpaceND")
                                        .Device(DeviceType::kCpu)
                                        .TypeConstraint("T", dtype)
                                        .HostMemoryInput(1)
                                        .HostMemoryInput(2),
                                    [](OpKernelConstruction* c) -> std::unique_ptr<OpKernel> {
                                      return std::make_unique<SpaceBatchOp<false>>(c);
                                    });
}

// Pure data movement: every fixed-size dtype costs nothing extra to support.
const bool kRegistered = [] {
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16, DT_INT8, DT_UINT8, DT_INT16,
                         DT_INT32, DT_INT64, DT_BOOL}) {
    Register(dtype);
  }
  return true;
}();

}  // namespace
}  // namespace tensord
