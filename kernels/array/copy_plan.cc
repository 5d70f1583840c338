#include "kernels/array/copy_plan.h"

#include <algorithm>

#include "absl/container/inlined_vector.h"
#include "kernels/array/array_util.h"
#include "kernels/array/copy_plan_gpu_op.h"
#include "runtime/framework/parallel_for.h"
#include "runtime/framework/tensor_eigen.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace array {
namespace {

// Work is split into units of roughly these sizes so that long axes still spread over threads.
constexpr int64_t kChunk = 1 << 14;        // elements of a contiguous or strided inner axis
constexpr int64_t kRunsPerUnit = 1 << 12;  // runs of a tabled inner axis
constexpr int64_t kBlock = 32;             // tile edge for transposed copies
constexpr int64_t kTileChunk = 1 << 10;    // inner elements per transposed work unit

using Axis = LoopAxis;

// How the innermost axis (plus, for kTiled, one more axis) is copied.
enum class Mode {
  kContiguous,  // src and dst both stride 1: std::copy
  kRuns,        // tabled source, dst stride 1: std::copy of each run of consecutive offsets
  kTiled,       // a transpose: inner reads strided, `tile` axis reads stride 1; kBlock^2 tiles
  kStrided,     // anything else, element by element
};

struct Run {
  int64_t dst;
  int64_t src;
  int64_t len;
};

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// A normalised plan. Work unit u covers outer position u / splits and part u % splits of the
// inner loop: a chunk of the inner axis, a chunk of runs, or (kTiled) a block of tile rows
// times a chunk of the inner axis.
struct Schedule {
  bool empty = false;
  int64_t src_base = 0;
  int64_t dst_base = 0;
  std::vector<Axis> outer;
  Axis inner{1, 1, 1, nullptr};
  Axis tile{1, 1, 1, nullptr};
  Mode mode = Mode::kContiguous;
  std::vector<Run> runs;
  int64_t splits = 1;
  int64_t inner_chunks = 1;  // kTiled: parts per tile block
  int64_t unit_elements = 1;
};

Schedule MakeSchedule(const CopyPlan& plan) {
  Schedule s;
  s.dst_base = plan.dst_base;
  std::optional<std::vector<Axis>> loops = MergedLoops(plan, &s.src_base);
  if (!loops.has_value()) {
    s.empty = true;
    return s;
  }
  std::vector<Axis> axes = *std::move(loops);
  if (axes.empty()) return s;  // one element, copied as a contiguous run of 1

  s.inner = axes.back();
  axes.pop_back();
  const Axis& in = s.inner;
  if (in.affine() && in.src_stride == 1 && in.dst_stride == 1) {
    s.mode = Mode::kContiguous;
  } else if (!in.affine() && in.dst_stride == 1) {
    s.mode = Mode::kRuns;
    for (int64_t i = 0; i < in.size; ++i) {
      if (!s.runs.empty() && s.runs.back().src + s.runs.back().len == (*in.table)[i]) {
        ++s.runs.back().len;
      } else {
        s.runs.push_back(Run{i, (*in.table)[i], 1});
      }
    }
  } else {
    s.mode = Mode::kStrided;
    if (in.affine() && in.dst_stride == 1) {
      // A transpose: block the inner axis with the innermost axis that reads contiguously.
      for (int k = static_cast<int>(axes.size()) - 1; k >= 0; --k) {
        if (axes[k].affine() && axes[k].src_stride == 1) {
          s.mode = Mode::kTiled;
          s.tile = axes[k];
          axes.erase(axes.begin() + k);
          break;
        }
      }
    }
  }
  switch (s.mode) {
    case Mode::kContiguous:
    case Mode::kStrided:
      s.splits = CeilDiv(in.size, kChunk);
      s.unit_elements = std::min(in.size, kChunk);
      break;
    case Mode::kRuns:
      s.splits = CeilDiv(static_cast<int64_t>(s.runs.size()), kRunsPerUnit);
      s.unit_elements = in.size / s.splits;
      break;
    case Mode::kTiled:
      s.inner_chunks = CeilDiv(in.size, kTileChunk);
      s.splits = CeilDiv(s.tile.size, kBlock) * s.inner_chunks;
      s.unit_elements = std::min(s.tile.size, kBlock) * std::min(in.size, kTileChunk);
      break;
  }
  s.outer = std::move(axes);
  return s;
}

template <typename U>
void CopyUnit(const Schedule& s, int64_t part, const U* src, int64_t so, U* dst, int64_t d) {
  const Axis& in = s.inner;
  switch (s.mode) {
    case Mode::kContiguous: {
      const int64_t begin = part * kChunk;
      std::copy_n(src + so + begin, std::min(kChunk, in.size - begin), dst + d + begin);
      break;
    }
    case Mode::kRuns: {
      const int64_t begin = part * kRunsPerUnit;
      const int64_t end = std::min(begin + kRunsPerUnit, static_cast<int64_t>(s.runs.size()));
      for (int64_t r = begin; r < end; ++r) {
        const Run& run = s.runs[r];
        std::copy_n(src + so + run.src, run.len, dst + d + run.dst);
      }
      break;
    }
    case Mode::kTiled: {
      const int64_t t0 = part / s.inner_chunks * kBlock;
      const int64_t t1 = std::min(t0 + kBlock, s.tile.size);
      const int64_t begin = part % s.inner_chunks * kTileChunk;
      const int64_t end = std::min(begin + kTileChunk, in.size);
      for (int64_t i0 = begin; i0 < end; i0 += kBlock) {
        const int64_t i1 = std::min(i0 + kBlock, end);
        for (int64_t t = t0; t < t1; ++t) {
          U* out = dst + d + t * s.tile.dst_stride;
          const int64_t base = so + t;  // the tile axis reads with stride 1
          for (int64_t i = i0; i < i1; ++i) out[i] = src[base + i * in.src_stride];
        }
      }
      break;
    }
    case Mode::kStrided: {
      const int64_t begin = part * kChunk;
      const int64_t end = std::min(begin + kChunk, in.size);
      for (int64_t i = begin; i < end; ++i) dst[d + i * in.dst_stride] = src[so + in.Src(i)];
      break;
    }
  }
}

template <typename U>
void RunSchedule(const Schedule& s, const U* src, U* dst, const Eigen::ThreadPoolDevice& device) {
  int64_t outer_count = 1;
  for (const Axis& a : s.outer) outer_count *= a.size;
  const int64_t units = outer_count * s.splits;
  const int n = static_cast<int>(s.outer.size());

  auto work = [&](Eigen::Index first, Eigen::Index last) {
    absl::InlinedVector<int64_t, 8> idx(n);
    int64_t rest = first / s.splits;
    int64_t part = first % s.splits;
    for (int k = n - 1; k >= 0; --k) {
      idx[k] = rest % s.outer[k].size;
      rest /= s.outer[k].size;
    }
    for (int64_t unit = first; unit < last;) {
      int64_t so = s.src_base;
      int64_t d = s.dst_base;
      for (int k = 0; k < n; ++k) {
        so += s.outer[k].Src(idx[k]);
        d += idx[k] * s.outer[k].dst_stride;
      }
      for (; part < s.splits && unit < last; ++part, ++unit) CopyUnit(s, part, src, so, dst, d);
      part = 0;
      for (int k = n - 1; k >= 0; --k) {
        if (++idx[k] < s.outer[k].size) break;
        idx[k] = 0;
      }
    }
  };
  const double bytes = static_cast<double>(s.unit_elements * sizeof(U));
  ParallelFor(device, units, Eigen::TensorOpCost(bytes, bytes, s.unit_elements), work);
}

}  // namespace

std::optional<std::vector<LoopAxis>> MergedLoops(const CopyPlan& plan, int64_t* src_base) {
  *src_base = plan.src_base;
  std::vector<LoopAxis> axes;
  for (const CopyAxis& a : plan.axes) {
    if (a.size == 0) return std::nullopt;
    LoopAxis axis{a.size, a.src_stride, a.dst_stride,
                  a.src_offsets.empty() ? nullptr : &a.src_offsets};
    if (axis.size == 1) {  // contributes a constant
      *src_base += axis.Src(0);
      continue;
    }
    if (!axes.empty() && axes.back().affine() && axis.affine() &&
        axes.back().src_stride == axis.size * axis.src_stride &&
        axes.back().dst_stride == axis.size * axis.dst_stride) {
      axes.back() = LoopAxis{axes.back().size * axis.size, axis.src_stride, axis.dst_stride,
                             nullptr};
      continue;
    }
    axes.push_back(axis);
  }
  return axes;
}

CopyPlan DenseOutputPlan(const TensorShape& out_shape, absl::Span<const int64_t> src_strides,
                         int64_t src_base) {
  CopyPlan plan;
  plan.src_base = src_base;
  const std::vector<int64_t> dst_strides = RowMajorStrides(out_shape);
  for (int k = 0; k < out_shape.dims(); ++k) {
    plan.AddAxis(out_shape.dim_size(k), src_strides[k], dst_strides[k]);
  }
  return plan;
}

absl::Status ExecuteCopyPlan(const OpKernelContext* c, const CopyPlan& plan, const Tensor& src,
                             Tensor* dst) {
  if (c->device_type() == DeviceType::kGpu) return ExecuteCopyPlanOnGpu(c, plan, src, dst);
  const Schedule s = MakeSchedule(plan);
  if (s.empty) return absl::OkStatus();
  return DispatchStorage(c, src.dtype(), [&](auto tag) {
    using U = typename decltype(tag)::type;
    RunSchedule<U>(s, src.data<U>(), dst->data<U>(), c->eigen_cpu_device());
  });
}

absl::Status ConcatColumns(const OpKernelContext* c, absl::Span<const Tensor* const> inputs,
                           int64_t outer, Tensor* out) {
  if (outer == 0) return absl::OkStatus();
  const int64_t total = out->NumElements() / outer;
  int64_t offset = 0;
  for (const Tensor* in : inputs) {
    const int64_t width = in->NumElements() / outer;
    CopyPlan plan;
    plan.dst_base = offset;
    plan.AddAxis(outer, width, total);
    plan.AddAxis(width, 1, 1);
    TENSORD_RETURN_IF_ERROR(ExecuteCopyPlan(c, plan, *in, out));
    offset += width;
  }
  return absl::OkStatus();
}

absl::Status SplitColumns(const OpKernelContext* c, const Tensor& in, int64_t outer,
                          absl::Span<Tensor* const> outputs) {
  if (outer == 0) return absl::OkStatus();
  const int64_t total = in.NumElements() / outer;
  int64_t offset = 0;
  for (Tensor* out : outputs) {
    const int64_t width = out->NumElements() / outer;
    CopyPlan plan;
    plan.src_base = offset;
    plan.AddAxis(outer, total, width);
    plan.AddAxis(width, 1, 1);
    TENSORD_RETURN_IF_ERROR(ExecuteCopyPlan(c, plan, in, out));
    offset += width;
  }
  return absl::OkStatus();
}

absl::Status OutputStridedSlice(OpKernelContext* c, const Tensor& x,
                                absl::Span<const int64_t> begin, absl::Span<const int64_t> strides,
                                absl::Span<const int64_t> sizes, const TensorShape& out_shape) {
  const int rank = x.dims();
  const std::vector<int64_t> in_strides = RowMajorStrides(x.shape());
  int64_t offset = 0;
  for (int i = 0; i < rank; ++i) offset += begin[i] * in_strides[i];
  if (out_shape.num_elements() > 0) {
    // Contiguous when, left of the innermost partial dim, every dim has size 1.
    int partial = rank - 1;
    while (partial >= 0 && sizes[partial] == x.dim_size(partial) &&
           (strides[partial] == 1 || sizes[partial] == 1)) {
      --partial;
    }
    bool contiguous = partial < 0 || strides[partial] == 1 || sizes[partial] == 1;
    for (int i = 0; i < partial; ++i) contiguous &= sizes[i] == 1;
    if (contiguous) {
      TENSORD_ASSIGN_OR_RETURN(Tensor flat, x.Reshaped(TensorShape{x.NumElements()}));
      TENSORD_ASSIGN_OR_RETURN(
          Tensor y, flat.Slice(offset, offset + out_shape.num_elements()).Reshaped(out_shape));
      c->set_output(0, std::move(y));
      return absl::OkStatus();
    }
  }
  Tensor* y = c->allocate_output(0, x.dtype(), out_shape);
  CopyPlan plan;
  plan.src_base = offset;
  int64_t dst_stride = out_shape.num_elements();
  for (int i = 0; i < rank; ++i) {
    dst_stride = sizes[i] == 0 ? 0 : dst_stride / sizes[i];
    plan.AddAxis(sizes[i], strides[i] * in_strides[i], dst_stride);
  }
  return ExecuteCopyPlan(c, plan, x, y);
}

absl::Status FillTensor(const OpKernelContext* c, const Tensor& value, Tensor* dst) {
  if (c->device_type() == DeviceType::kGpu) return FillTensorOnGpu(c, value, dst);
  return DispatchStorage(c, dst->dtype(), [&](auto tag) {
    using U = typename decltype(tag)::type;
    const U v = value.scalar<U>();
    U* out = dst->data<U>();
    ParallelFor(
        c->eigen_cpu_device(), dst->NumElements(), Eigen::TensorOpCost(0, sizeof(U), 1),
        [&](Eigen::Index first, Eigen::Index last) { std::fill(out + first, out + last, v); });
  });
}

}  // namespace array
}  // namespace tensord
