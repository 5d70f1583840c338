// A generic element-copy engine for data-movement kernels.
//
// A CopyPlan describes a copy as a set of axes. For every index tuple (i_0, ..., i_{n-1}):
//
//   dst[dst_base + sum_k i_k * dst_stride_k] = src[src_base + sum_k src_offset_k(i_k)]
//
// where src_offset_k(i) is i * src_stride_k, or src_offsets_k[i] for a tabled axis. Offsets and
// strides count elements and may be negative or zero (broadcasting). Transpose, Slice,
// StridedSlice, Reverse, Tile, BroadcastTo, Pad, MirrorPad, Concat, Split, Pack, Unpack, Gather
// and GatherNd are all such plans; the CPU engine merges axes, copies contiguous runs with
// std::copy (memmove for numbers), blocks transposed axes for cache locality, and splits the work
// over the CPU device's threads. It works on any dtype through its storage type (strings are
// copied as strings), so kernels never need one instantiation per dtype. On a GPU the same plan
// runs as one kernel by element size (copy_plan_gpu.h), so the kernels above serve both devices
// once registered for the GPU with their index operands in host memory.
//
//   // y = transpose(x) for a [rows, cols] matrix x:
//   CopyPlan plan;
//   plan.AddAxis(cols, /*src_stride=*/1, /*dst_stride=*/rows);
//   plan.AddAxis(rows, /*src_stride=*/cols, /*dst_stride=*/1);
//   TENSORD_RETURN_IF_ERROR(ExecuteCopyPlan(c, plan, x, y));
//
// Thread safety: plans are plain values; ExecuteCopyPlan may run concurrently on distinct
// destinations.
#ifndef TENSORD_KERNELS_ARRAY_COPY_PLAN_H_
#define TENSORD_KERNELS_ARRAY_COPY_PLAN_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/tensor.h"

namespace tensord {
namespace array {

struct CopyAxis {
  int64_t size = 1;
  int64_t src_stride = 0;
  int64_t dst_stride = 0;
  // When non-empty (exactly `size` entries): the source offset of each position, replacing
  // i * src_stride. For mappings that are not affine: MirrorPad reflections, gathered indices.
  // (Tile needs none: each tiled dim is two affine axes, the repeat having source stride 0.)
  std::vector<int64_t> src_offsets;
};

struct CopyPlan {
  std::vector<CopyAxis> axes;  // outermost first
  int64_t src_base = 0;
  int64_t dst_base = 0;

  void AddAxis(int64_t size, int64_t src_stride, int64_t dst_stride) {
    axes.push_back(CopyAxis{size, src_stride, dst_stride, {}});
  }
  void AddTableAxis(std::vector<int64_t> src_offsets, int64_t dst_stride) {
    const int64_t size = static_cast<int64_t>(src_offsets.size());
    axes.push_back(CopyAxis{size, 0, dst_stride, std::move(src_offsets)});
  }
};

// An axis as the engines loop over it; `table`, when set, is the plan's src_offsets.
struct LoopAxis {
  int64_t size;
  int64_t src_stride;
  int64_t dst_stride;
  const std::vector<int64_t>* table;  // null for affine axes

  bool affine() const { return table == nullptr; }
  int64_t Src(int64_t i) const { return table != nullptr ? (*table)[i] : i * src_stride; }
};

// The loops `plan` needs, outermost first: size-1 axes folded into *src_base (which starts as
// plan.src_base), neighbouring affine axes that step like one longer axis merged. nullopt when
// the plan copies nothing (an axis of size 0). The axes point into `plan`, which must outlive
// them. The CPU and GPU engines both run this form.
std::optional<std::vector<LoopAxis>> MergedLoops(const CopyPlan& plan, int64_t* src_base);

// A plan that writes a dense row-major tensor of shape `out_shape`, reading output position
// (i_0, ...) from src_base + sum_k i_k * src_strides[k].
CopyPlan DenseOutputPlan(const TensorShape& out_shape, absl::Span<const int64_t> src_strides,
                         int64_t src_base = 0);

// Runs `plan` from src's elements into dst's (both of dtype src.dtype(); dst already
// allocated), on the kernel's device: the CPU's threads, or on a GPU (src and dst in its
// memory) one kernel queued on its stream. The caller guarantees every offset is in bounds.
absl::Status ExecuteCopyPlan(const OpKernelContext* c, const CopyPlan& plan, const Tensor& src,
                             Tensor* dst);

// Concatenation of row blocks: inputs[i], viewed as [outer, width_i] (width_i = its element
// count / outer), fills columns [sum of earlier widths, + width_i) of `out` viewed as
// [outer, sum of widths]. Used by Concat and Pack.
absl::Status ConcatColumns(const OpKernelContext* c, absl::Span<const Tensor* const> inputs,
                           int64_t outer, Tensor* out);

// The inverse: outputs[i], viewed as [outer, width_i], receives the next width_i columns of `in`
// viewed as [outer, sum of widths]. Used by Split and Unpack.
absl::Status SplitColumns(const OpKernelContext* c, const Tensor& in, int64_t outer,
                          absl::Span<Tensor* const> outputs);

// Sets output 0 of `c` to a strided slice of x: position (i_0, ...) of the slice, whose dims are
// `sizes`, reads x[begin_0 + i_0 * strides_0, ...]. `out_shape` has the slice's element count
// (it may add or drop size-1 dims). Shares x's buffer when the slice is one contiguous range.
absl::Status OutputStridedSlice(OpKernelContext* c, const Tensor& x,
                                absl::Span<const int64_t> begin, absl::Span<const int64_t> strides,
                                absl::Span<const int64_t> sizes, const TensorShape& out_shape);

// Sets every element of dst to the scalar `value` (same dtype, in host memory), on the
// kernel's device.
absl::Status FillTensor(const OpKernelContext* c, const Tensor& value, Tensor* dst);

}  // namespace array
}  // namespace tensord

#endif  // TENSORD_KERNELS_ARRAY_COPY_PLAN_H_
