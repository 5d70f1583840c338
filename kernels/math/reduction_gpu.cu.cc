// The GPU reduction kernels behind reduction_gpu.h. A reduction runs one block per output
// element (threads stride over the reduced elements, then a tree in shared memory) when each
// output folds many elements, and one thread per output element otherwise, which also keeps
// reads coalesced when the reduced axes are outer ones.
#include <cuda_runtime.h>

#include <cfloat>
#include <cmath>

#include "kernels/math/reduction_gpu.h"
#include "runtime/framework/gpu_grid.h"

namespace tensord {
namespace math {
namespace {

// A reduction folds at least this many elements per output before a block serves each.
constexpr int64_t kBlockPerOutputMin = 64;

template <GpuReduceFn kFn>
struct Fold {
  __device__ static float Identity() {
    if constexpr (kFn == GpuReduceFn::kProd) return 1.0f;
    if constexpr (kFn == GpuReduceFn::kMax) return -INFINITY;
    if constexpr (kFn == GpuReduceFn::kMin) return INFINITY;
    return 0.0f;
  }
  __device__ static float Prepare(float x) {
    if constexpr (kFn == GpuReduceFn::kEuclideanNorm) return x * x;
    return x;
  }
  __device__ static float Combine(float a, float b) {
    if constexpr (kFn == GpuReduceFn::kProd) return a * b;
    // NaN from either side wins, as the CPU kernels' PropagateNaN.
    if constexpr (kFn == GpuReduceFn::kMax) return isnan(a) || a > b ? a : b;
    if constexpr (kFn == GpuReduceFn::kMin) return isnan(a) || a < b ? a : b;
    return a + b;
  }
  __device__ static float Finalize(float acc, int64_t count) {
    if constexpr (kFn == GpuReduceFn::kMean) return acc / static_cast<float>(count);
    if constexpr (kFn == GpuReduceFn::kEuclideanNorm) return sqrtf(acc);
    return acc;
  }
};

// sum of index's coordinates over sizes (outermost first) times strides.
__device__ __forceinline__ int64_t Offset(int64_t index, int rank, const int64_t* sizes,
                                          const int64_t* strides) {
  if (rank == 1) return index * strides[0];  // the common case, without a division
  int64_t offset = 0;
  for (int d = rank - 1; d >= 0; --d) {
    offset += (index % sizes[d]) * strides[d];
    index /= sizes[d];
  }
  return offset;
}

template <GpuReduceFn kFn>
__device__ __forceinline__ float FoldRange(const GpuReduceLayout& l, const float* base,
                                           int64_t begin, int64_t step) {
  using F = Fold<kFn>;
  float acc = F::Identity();
  for (int64_t r = begin; r < l.count; r += step) {
    acc = F::Combine(acc, F::Prepare(base[Offset(r, l.reduced_rank, l.reduced_sizes,
                                                 l.reduced_strides)]));
  }
  return acc;
}

template <GpuReduceFn kFn>
__global__ void ReducePerThread(GpuReduceLayout l, const float* in, float* out) {
  const int64_t step = int64_t{blockDim.x} * gridDim.x;
  for (int64_t o = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; o < l.outputs; o += step) {
    const float* base = in + Offset(o, l.kept_rank, l.kept_sizes, l.kept_strides);
    out[o] = Fold<kFn>::Finalize(FoldRange<kFn>(l, base, 0, 1), l.count);
  }
}

// blockDim.x == kGridThreads, a power of two.
template <GpuReduceFn kFn>
__global__ void ReducePerBlock(GpuReduceLayout l, const float* in, float* out) {
  using F = Fold<kFn>;
  __shared__ float partial[kGridThreads];
  const int t = threadIdx.x;
  for (int64_t o = blockIdx.x; o < l.outputs; o += gridDim.x) {
    const float* base = in + Offset(o, l.kept_rank, l.kept_sizes, l.kept_strides);
    partial[t] = FoldRange<kFn>(l, base, t, blockDim.x);
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
      if (t < half) partial[t] = F::Combine(partial[t], partial[t + half]);
      __syncthreads();
    }
    if (t == 0) out[o] = F::Finalize(partial[0], l.count);
    __syncthreads();  // partial[0] is read before the next output overwrites it
  }
}

template <GpuReduceFn kFn>
const char* Reduce(GpuStream s, const GpuReduceLayout& l, const float* in, float* out) {
  const bool per_block = l.count >= kBlockPerOutputMin &&
                         (l.innermost_reduced || l.outputs < kGridMaxBlocks);
  if (per_block) {
    const int blocks = static_cast<int>(l.outputs < kGridMaxBlocks ? l.outputs : kGridMaxBlocks);
    ReducePerBlock<kFn><<<blocks, kGridThreads, 0, s.stream>>>(l, in, out);
  } else {
    ReducePerThread<kFn><<<GridBlocks(l.outputs), kGridThreads, 0, s.stream>>>(l, in, out);
  }
  return LaunchError();
}

// A running best of an arg reduction; `index` is the position along the reduced axis.
struct Best {
  float value;
  int64_t index;
};

template <bool kMax>
__device__ __forceinline__ bool Beats(float v, float best) {
  return kMax ? v > best : v < best;  // false for NaN either way
}

// The better of two partial bests; a tie goes to the lower index, as a sequential scan would.
template <bool kMax>
__device__ __forceinline__ Best Better(Best a, Best b) {
  if (Beats<kMax>(b.value, a.value) || (b.value == a.value && b.index < a.index)) return b;
  return a;
}

template <bool kMax>
__device__ __forceinline__ Best Scan(const float* row, int64_t size, int64_t inner,
                                     int64_t begin, int64_t step) {
  Best best{kMax ? -FLT_MAX : FLT_MAX, 0};
  for (int64_t r = begin; r < size; r += step) {
    const float v = row[r * inner];
    if (Beats<kMax>(v, best.value)) best = {v, r};
  }
  return best;
}

template <bool kMax, typename Out>
__global__ void ArgPerThread(int64_t outer, int64_t size, int64_t inner, const float* in,
                             Out* out) {
  const int64_t outputs = outer * inner;
  const int64_t step = int64_t{blockDim.x} * gridDim.x;
  for (int64_t o = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; o < outputs; o += step) {
    const float* row = in + (o / inner) * size * inner + o % inner;
    out[o] = static_cast<Out>(Scan<kMax>(row, size, inner, 0, 1).index);
  }
}

// inner == 1: each output's elements are contiguous.
template <bool kMax, typename Out>
__global__ void ArgPerBlock(int64_t outer, int64_t size, const float* in, Out* out) {
  __shared__ Best partial[kGridThreads];
  const int t = threadIdx.x;
  for (int64_t o = blockIdx.x; o < outer; o += gridDim.x) {
    partial[t] = Scan<kMax>(in + o * size, size, 1, t, blockDim.x);
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
      if (t < half) partial[t] = Better<kMax>(partial[t], partial[t + half]);
      __syncthreads();
    }
    if (t == 0) out[o] = static_cast<Out>(partial[0].index);
    __syncthreads();
  }
}

template <bool kMax, typename Out>
const char* ArgReduce(GpuStream s, int64_t outer, int64_t size, int64_t inner, const float* in,
                      Out* out) {
  if (inner == 1 && size >= kBlockPerOutputMin) {
    const int blocks = static_cast<int>(outer < kGridMaxBlocks ? outer : kGridMaxBlocks);
    ArgPerBlock<kMax, Out><<<blocks, kGridThreads, 0, s.stream>>>(outer, size, in, out);
  } else {
    ArgPerThread<kMax, Out>
        <<<GridBlocks(outer * inner), kGridThreads, 0, s.stream>>>(outer, size, inner, in, out);
  }
  return LaunchError();
}

}  // namespace

const char* LaunchGpuReduce(GpuStream s, GpuReduceFn fn, const GpuReduceLayout& layout,
                            const float* in, float* out) {
  if (layout.outputs == 0) return nullptr;
  if (const cudaError_t e = cudaSetDevice(s.ordinal); e != cudaSuccess) {
    return cudaGetErrorString(e);
  }
  using F = GpuReduceFn;
  switch (fn) {
    case F::kSum: return Reduce<F::kSum>(s, layout, in, out);
    case F::kMean: return Reduce<F::kMean>(s, layout, in, out);
    case F::kProd: return Reduce<F::kProd>(s, layout, in, out);
    case F::kMax: return Reduce<F::kMax>(s, layout, in, out);
    case F::kMin: return Reduce<F::kMin>(s, layout, in, out);
    case F::kEuclideanNorm: return Reduce<F::kEuclideanNorm>(s, layout, in, out);
  }
  return "unknown reduction";
}

const char* LaunchGpuArgReduce(GpuStream s, bool max, int64_t outer, int64_t size, int64_t inner,
                               const float* in, void* out, bool out64) {
  if (outer * inner == 0) return nullptr;
  if (const cudaError_t e = cudaSetDevice(s.ordinal); e != cudaSuccess) {
    return cudaGetErrorString(e);
  }
  if (out64) {
    auto* o = static_cast<int64_t*>(out);
    return max ? ArgReduce<true>(s, outer, size, inner, in, o)
               : ArgReduce<false>(s, outer, size, inner, in, o);
  }
  auto* o = static_cast<int32_t*>(out);
  return max ? ArgReduce<true>(s, outer, size, inner, in, o)
             : ArgReduce<false>(s, outer, size, inner, in, o);
}

}  // namespace math
}  // namespace tensord
