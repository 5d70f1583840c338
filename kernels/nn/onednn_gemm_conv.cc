#include "kernels/nn/onednn_gemm_conv.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "dnnl.hpp"
#include "kernels/nn/onednn_util.h"

namespace tensord {

using dnnl::memory;
using onednn::ThreadBufferSlot;

namespace {

using Tag = memory::format_tag;
constexpr auto kF32 = memory::data_type::f32;

// Row parts are at least this tall.
constexpr int64_t kMinRowsPerPart = 32;
// Rows per product call, bounding the patch buffer (and a call's working set).
constexpr int64_t kMaxRowsPerCall = 256;
// Column splits keep whole 16-float vectors.
constexpr int64_t kColumnAlign = 16;

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

// Copies a block of `rows` rows of `columns` floats between matrices of different row strides.
void CopyBlock(const float* from, int64_t from_stride, float* to, int64_t to_stride,
               int64_t rows, int64_t columns) {
  for (int64_t r = 0; r < rows; ++r) {
    std::memcpy(to + r * to_stride, from + r * from_stride, columns * sizeof(float));
  }
}

// One thread's share: a range of rows with every column, or every row with a range of columns.
struct Part {
  int64_t first_row, end_row, first_column, end_column;
};

// Parts read the whole filter when split by rows, and every row's patches when split by
// columns: split the larger of the two (columns when the filter holds more floats than the
// patches do).
std::vector<Part> Split(int64_t rows, int64_t inner, int64_t columns, int threads) {
  if (threads <= 1 || rows * inner * columns < onednn::kMinMacsToSplit) {
    return {Part{0, rows, 0, columns}};
  }
  std::vector<Part> parts;
  const int64_t blocks = (columns + kColumnAlign - 1) / kColumnAlign;
  if (rows <= kMaxRowsPerCall && columns > rows && blocks >= 2) {
    const int64_t n = std::min<int64_t>(threads, blocks);
    for (int64_t i = 0; i < n; ++i) {
      parts.push_back(Part{0, rows, std::min(columns, blocks * i / n * kColumnAlign),
                           std::min(columns, blocks * (i + 1) / n * kColumnAlign)});
    }
    return parts;
  }
  const int64_t n = std::max<int64_t>(1, std::min<int64_t>(threads, rows / kMinRowsPerPart));
  for (int64_t i = 0; i < n; ++i) {
    parts.push_back(Part{rows * i / n, rows * (i + 1) / n, 0, columns});
  }
  return parts;
}

}  // namespace

struct OneDnnGemmConv::Plan {
  dnnl::matmul::primitive_desc pd;
  dnnl::matmul primitive;
  memory::desc src_md, dst_md, user_weights_md, bias_md;
};

OneDnnGemmConv::OneDnnGemmConv(OneDnnConvOptions options)
    : options_(options), weights_(std::make_unique<onednn::WeightsCache>()) {}
OneDnnGemmConv::~OneDnnGemmConv() = default;

bool OneDnnGemmConv::Prefers(const Window2DGeometry& g, int64_t groups) {
  return groups == 1 && g.out_cols <= 4;
}

const OneDnnGemmConv::Plan& OneDnnGemmConv::PlanFor(int64_t rows, int64_t inner,
                                                    int64_t columns, int64_t out_depth,
                                                    bool with_bias, bool epilogue) const {
  const std::vector<int64_t> key = {rows, inner, columns, out_depth, with_bias, epilogue};
  std::lock_guard<std::mutex> lock(mu_);
  auto it = plans_.find(key);
  if (it != plans_.end()) return *it->second;

  auto plan = std::make_unique<Plan>();
  plan->src_md = memory::desc({rows, inner}, kF32, Tag::ab);
  plan->dst_md = memory::desc({rows, columns}, kF32, Tag::ab);
  // A share of the filter's columns: rows of out_depth floats.
  plan->user_weights_md = memory::desc({inner, columns}, kF32, memory::dims{out_depth, 1});
  plan->bias_md = memory::desc({1, columns}, kF32, Tag::ab);
  const memory::desc any_weights({inner, columns}, kF32, Tag::any);
  const auto desc = with_bias
                        ? dnnl::matmul::desc(plan->src_md, any_weights, plan->bias_md,
                                             plan->dst_md)
                        : dnnl::matmul::desc(plan->src_md, any_weights, plan->dst_md);
  dnnl::primitive_attr attr;
  if (epilogue) attr.set_post_ops(onednn::PostOps(options_));
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);  // see onednn_conv.cc
  plan->pd = dnnl::matmul::primitive_desc(desc, attr, onednn::Engine());
  plan->primitive = dnnl::matmul(plan->pd);
  return *plans_.emplace(key, std::move(plan)).first->second;
}

absl::Status OneDnnGemmConv::Run(const Window2DGeometry& g, const Tensor& input,
                                 const Tensor& filter, int64_t out_depth, const Tensor* bias,
                                 bool epilogue, int threads,
                                 const Eigen::ThreadPoolDevice& device, Tensor* output) const {
  const int64_t rows = g.batch * g.out_rows * g.out_cols;
  const int64_t inner = g.k_rows * g.k_cols * g.depth;
  const bool direct_input = InputIsRowMatrix(g);
  const float* in = input.data<float>();
  float* out = output->data<float>();
  const bool sum_into_output = epilogue && options_.add_residual;
  const std::vector<Part> parts = Split(rows, inner, out_depth, threads);
  const bool column_parts = parts.front().end_column - parts.front().first_column < out_depth;

  // Column parts all read every row: make the patches once, here.
  const float* shared_patches = in;
  if (column_parts && !direct_input) {
    float* patches = onednn::ThreadBuffer(ThreadBufferSlot::kPatches,
                                          rows * inner * sizeof(float));
    Im2Col(g, in, 0, rows, patches);
    shared_patches = patches;
  }

  // `n` rows of patches `a` times the part's columns of the filter into the dense block `c`.
  auto multiply = [&](const Part& part, int64_t n, const float* a, float* c) {
    const int64_t columns = part.end_column - part.first_column;
    const Plan& plan = PlanFor(n, inner, columns, out_depth, bias != nullptr, epilogue);
    const std::shared_ptr<memory> weights =
        weights_->Get(plan.user_weights_md, plan.pd.weights_desc(), filter, part.first_column);
    const memory::desc& scratch_md = plan.pd.scratchpad_desc();
    std::unordered_map<int, memory> args = {
        {DNNL_ARG_SRC, memory(plan.src_md, onednn::Engine(), const_cast<float*>(a))},
        {DNNL_ARG_WEIGHTS, *weights},
        {DNNL_ARG_DST, memory(plan.dst_md, onednn::Engine(), c)},
        {DNNL_ARG_SCRATCHPAD,
         memory(scratch_md, onednn::Engine(),
                onednn::ThreadBuffer(ThreadBufferSlot::kScratchpad, scratch_md.get_size()))}};
    if (bias != nullptr) {
      args.emplace(DNNL_ARG_BIAS,
                   memory(plan.bias_md, onednn::Engine(),
                          const_cast<float*>(bias->data<float>()) + part.first_column));
    }
    plan.primitive.execute(onednn::ThreadStream(), args);
    onednn::ThreadStream().wait();
  };

  return onednn::RunParts(parts.size(), device, [&](size_t i) {
    const Part& part = parts[i];
    if (column_parts) {
      // The part's columns are strided in the output; the product writes a dense block.
      const int64_t columns = part.end_column - part.first_column;
      float* block =
          onednn::ThreadBuffer(ThreadBufferSlot::kOutput, rows * columns * sizeof(float));
      if (sum_into_output) {
        CopyBlock(out + part.first_column, out_depth, block, columns, rows, columns);
      }
      multiply(part, rows, shared_patches, block);
      CopyBlock(block, columns, out + part.first_column, out_depth, rows, columns);
      return;
    }
    for (int64_t first = part.first_row; first < part.end_row; first += kMaxRowsPerCall) {
      const int64_t n = std::min(kMaxRowsPerCall, part.end_row - first);
      const float* a = in + first * inner;
      if (!direct_input) {
        float* patches =
            onednn::ThreadBuffer(ThreadBufferSlot::kPatches, n * inner * sizeof(float));
        Im2Col(g, in, first, first + n, patches);
        a = patches;
      }
      multiply(part, n, a, out + first * out_depth);
    }
  });
}

}  // namespace tensord
