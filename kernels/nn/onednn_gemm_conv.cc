#include "kernels/nn/onednn_gemm_conv.h"
#include "runtime/framework/tensor_eigen.h"

#include <cstring>

namespace tensord {
namespace {

// A 1×1 window that reads every input pixel once: the input already is the row matrix.
bool InputIsRowMatrix(const Window2DGeometry& g) {
  return g.k_rows == 1 && g.k_cols == 1 && g.stride_rows == 1 && g.stride_cols == 1 &&
         g.pad_top == 0 && g.pad_left == 0 && g.out_rows == g.in_rows &&
         g.out_cols == g.in_cols;
}

// Rows [first, end) of the patch matrix into `patches`: each output pixel's window in
// (k_row, k_col, channel) order — the filter's row order — with zeros where it covers padding.
void Im2Col(const Window2DGeometry& g, const float* input, int64_t first, int64_t end,
            float* patches) {
  const size_t pixel_bytes = g.depth * sizeof(float);
  for (int64_t row = first; row < end; ++row) {
    const int64_t x = row % g.out_cols;
    const int64_t y = (row / g.out_cols) % g.out_rows;
    const int64_t b = row / (g.out_cols * g.out_rows);
    const float* image = input + b * g.in_rows * g.in_cols * g.depth;
    for (int64_t ky = 0; ky < g.k_rows; ++ky) {
      const int64_t iy = y * g.stride_rows - g.pad_top + ky * g.dil_rows;
      for (int64_t kx = 0; kx < g.k_cols; ++kx) {
        const int64_t ix = x * g.stride_cols - g.pad_left + kx * g.dil_cols;
        if (iy < 0 || iy >= g.in_rows || ix < 0 || ix >= g.in_cols) {
          std::memset(patches, 0, pixel_bytes);
        } else {
          std::memcpy(patches, image + (iy * g.in_cols + ix) * g.depth, pixel_bytes);
        }
        patches += g.depth;
      }
    }
  }
}

}  // namespace

bool OneDnnGemmConv::Prefers(const Window2DGeometry& g, int64_t groups) {
  return groups == 1 && g.out_cols <= 4;
}

absl::Status OneDnnGemmConv::Run(const Window2DGeometry& g, const Tensor& input,
                                 const Tensor& filter, int64_t out_depth, const Tensor* bias,
                                 bool epilogue, int threads,
                                 const Eigen::ThreadPoolDevice& device, Tensor* output) const {
  MatMulOperands m;
  m.rows = g.batch * g.out_rows * g.out_cols;
  m.inner = g.k_rows * g.k_cols * g.depth;
  m.columns = out_depth;
  const float* in = input.data<float>();
  if (InputIsRowMatrix(g)) {
    m.a = in;
  } else {
    m.fill_rows = [&g, in](int64_t first, int64_t end, float* out) {
      Im2Col(g, in, first, end, out);
    };
  }
  m.b = &filter;  // [k_rows, k_cols, depth, out_depth] is [inner, columns]
  m.bias = bias != nullptr ? bias->data<float>() : nullptr;
  m.epilogue = epilogue;
  m.c = output->data<float>();
  return matmul_.Run(m, threads, device);
}

}  // namespace tensord
