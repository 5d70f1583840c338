#include "kernels/nn/onednn_matmul.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "dnnl.hpp"
#include "kernels/nn/bfloat16_round.h"
#include "kernels/nn/onednn_util.h"
#include "kernels/nn/blocked_gemm.h"
#include "kernels/nn/panel_gemm.h"
#include "runtime/framework/tensor_eigen.h"

namespace tensord {

using dnnl::memory;
using onednn::ThreadBufferSlot;

namespace {

using Tag = memory::format_tag;
constexpr auto kF32 = memory::data_type::f32;
constexpr auto kBf16 = memory::data_type::bf16;

// Row parts are at least this tall.
constexpr int64_t kMinRowsPerPart = 32;
// Column splits keep whole 16-float vectors.
constexpr int64_t kColumnAlign = 16;

// Copies a block of `rows` rows of `columns` floats between matrices of different row strides.
void CopyBlock(const float* from, int64_t from_stride, float* to, int64_t to_stride,
               int64_t rows, int64_t columns) {
  for (int64_t r = 0; r < rows; ++r) {
    std::memcpy(to + r * to_stride, from + r * from_stride, columns * sizeof(float));
  }
}

using Part = OneDnnMatMul::Part;

// Parts read all of B when split by rows, and all of A when split by columns: split the larger
// of the two (columns when B holds more floats than A does). `bf16`: by rows whenever each
// part gets kMinRowsPerPart: oneDNN 2.6 has AMX kernels only for a dense C, so a column part
// would cost a copy of its block, and bfloat16 B is half the bytes to read.
std::vector<Part> Split(int64_t rows, int64_t inner, int64_t columns, int threads, bool bf16) {
  const bool small = rows * inner * columns < onednn::kMinMacsToSplit &&
                     inner * columns * static_cast<int64_t>(sizeof(float)) <
                         onednn::kMinWeightBytesToSplit;
  if (threads <= 1 || small) {
    return {Part{0, rows, 0, columns}};
  }
  std::vector<Part> parts;
  const int64_t blocks = (columns + kColumnAlign - 1) / kColumnAlign;
  const bool by_rows = bf16 && rows >= 2 * kMinRowsPerPart;
  if (!by_rows && rows <= OneDnnMatMul::kMaxRowsPerCall && columns > rows && blocks >= 2) {
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

// `weights` (packed as `md`, [inner, columns]) as PanelGemm's panels, when oneDNN chose the
// BA16a<W>b layout that PanelGemm reads; false otherwise.
bool AsPanels(const memory::desc& md, const memory& weights, int64_t inner, int64_t columns,
              PanelMatrix* panels) {
  const dnnl_memory_desc_t& d = md.data;
  if (d.format_kind != dnnl_blocked || d.ndims != 2 || d.data_type != dnnl_f32 ||
      d.extra.flags != 0) {
    return false;
  }
  const auto& blocking = d.format_desc.blocking;
  if (blocking.inner_nblks != 2 || blocking.inner_idxs[0] != 0 || blocking.inner_blks[0] != 16 ||
      blocking.inner_idxs[1] != 1) {
    return false;
  }
  const int64_t width = blocking.inner_blks[1];
  // Blocks of 16 rows follow each other within a panel; panels are outermost.
  if (width % 16 != 0 || width > 64 || blocking.strides[0] != 16 * width ||
      blocking.strides[1] < d.padded_dims[0] * width) {
    return false;
  }
  panels->data = static_cast<const float*>(weights.get_data_handle()) + d.offset0;
  panels->inner = inner;
  panels->columns = columns;
  panels->panel_width = static_cast<int>(width);
  panels->panel_stride = blocking.strides[1];
  return true;
}

}  // namespace

struct OneDnnMatMul::Plan {
  dnnl::matmul::primitive_desc pd;
  dnnl::matmul primitive;
  memory::desc src_md, dst_md, user_weights_md, bias_md;
};

OneDnnMatMul::OneDnnMatMul(OneDnnConvOptions options)
    : options_(options), weights_(std::make_unique<onednn::WeightsCache>()) {}
OneDnnMatMul::~OneDnnMatMul() = default;

const OneDnnMatMul::Plan& OneDnnMatMul::PlanFor(const MatMulOperands& m, int64_t rows,
                                                int64_t columns, bool with_bias) const {
  const std::vector<int64_t> key = {rows,       m.inner,   columns,
                                    m.columns,  with_bias, m.epilogue,
                                    m.b_transposed};
  return plans_.Get(key, [&] {
    auto plan = std::make_unique<Plan>();
    const memory::data_type operands =
        options_.precision == ComputePrecision::kBfloat16 ? kBf16 : kF32;
    plan->src_md = memory::desc({rows, m.inner}, operands, Tag::ab);
    plan->dst_md = memory::desc({rows, columns}, kF32, Tag::ab);
    // A share of B's columns, within rows of m.columns floats (or columns of m.inner floats).
    plan->user_weights_md =
        memory::desc({m.inner, columns}, kF32,
                     m.b_transposed ? memory::dims{1, m.inner} : memory::dims{m.columns, 1});
    plan->bias_md = memory::desc({1, columns}, kF32, Tag::ab);
    const memory::desc any_weights({m.inner, columns}, operands, Tag::any);
    const auto desc = with_bias ? dnnl::matmul::desc(plan->src_md, any_weights, plan->bias_md,
                                                     plan->dst_md)
                                : dnnl::matmul::desc(plan->src_md, any_weights, plan->dst_md);
    dnnl::primitive_attr attr;
    if (m.epilogue) attr.set_post_ops(onednn::PostOps(options_));
    // Each execution brings its own scratch memory: the library-managed default is shared
    // between primitives and not safe for concurrent executions.
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    plan->pd = dnnl::matmul::primitive_desc(desc, attr, onednn::Engine());
    plan->primitive = dnnl::matmul(plan->pd);
    return plan;
  });
}

void OneDnnMatMul::RunPanelKernel(void (*kernel)(const PanelGemmArgs&), const MatMulOperands& m,
                                  const float* a, int64_t rows, const PanelMatrix& panels,
                                  int64_t first_column, float* c, int64_t ldc) const {
  PanelGemmArgs args;
  args.a = a;
  args.lda = m.inner;
  args.rows = rows;
  args.b = panels;
  args.bias = m.bias != nullptr ? m.bias + first_column : nullptr;
  args.add_residual = m.epilogue && options_.add_residual;
  args.c = c;
  args.ldc = ldc;
  const FusedActivation activation = m.epilogue ? options_.activation : FusedActivation::kNone;
  if (activation == FusedActivation::kRelu || activation == FusedActivation::kRelu6) {
    args.min = 0.0f;
    if (activation == FusedActivation::kRelu6) args.max = 6.0f;
  }
  kernel(args);
  if (activation == FusedActivation::kElu || activation == FusedActivation::kLeakyRelu) {
    for (int64_t r = 0; r < rows; ++r) {
      float* row = c + r * ldc;
      for (int64_t j = 0; j < panels.columns; ++j) row[j] = Activate(options_, row[j]);
    }
  }
}

absl::Status OneDnnMatMul::RunBlocked(const MatMulOperands& m, const std::vector<Part>& parts,
                                      const float* shared_rows,
                                      const Eigen::ThreadPoolDevice& device) const {
  // B packed once, whole, as 16-column panels; parts take their panels from it (column parts
  // start at multiples of 16).
  const memory::desc user({m.inner, m.columns}, kF32,
                          m.b_transposed ? memory::dims{1, m.inner} : memory::dims{m.columns, 1});
  const memory::desc wanted({m.inner, m.columns}, kF32, Tag::BA16a16b);
  const std::shared_ptr<memory> weights = weights_->Get(user, wanted, *m.b);
  PanelMatrix all;
  if (!AsPanels(wanted, *weights, m.inner, m.columns, &all) || all.panel_width != 16) {
    return absl::InternalError("weights were not packed as 16-column panels");
  }
  return onednn::RunParts(parts.size(), device, [&](size_t i) {
    const Part& part = parts[i];
    PanelMatrix panels = all;
    panels.data += part.first_column / kColumnAlign * all.panel_stride;
    panels.columns = part.end_column - part.first_column;
    for (int64_t first = part.first_row; first < part.end_row; first += kMaxRowsPerCall) {
      const int64_t n = std::min(kMaxRowsPerCall, part.end_row - first);
      const float* a = shared_rows != nullptr ? shared_rows + first * m.inner : nullptr;
      if (a == nullptr) {
        float* rows =
            onednn::ThreadBuffer(ThreadBufferSlot::kPatches, n * m.inner * sizeof(float));
        m.fill_rows(first, first + n, rows);
        a = rows;
      }
      RunPanelKernel(BlockedGemm, m, a, n, panels, part.first_column,
                     m.c + first * m.columns + part.first_column, m.columns);
    }
  });
}

absl::Status OneDnnMatMul::Run(const MatMulOperands& m, int threads,
                               const Eigen::ThreadPoolDevice& device) const {
  if (m.rows == 0 || m.columns == 0) return absl::OkStatus();
  const bool bf16 = options_.precision == ComputePrecision::kBfloat16;
  const std::vector<Part> parts = Split(m.rows, m.inner, m.columns, threads, bf16);
  const bool column_parts = parts.front().end_column - parts.front().first_column < m.columns;
  const bool sum_into_c = m.epilogue && options_.add_residual;

  // Column parts all read every row: produce them once, here.
  const float* shared_rows = m.a;
  if (column_parts && m.a == nullptr) {
    float* rows = onednn::ThreadBuffer(ThreadBufferSlot::kPatches,
                                       m.rows * m.inner * sizeof(float));
    m.fill_rows(0, m.rows, rows);
    shared_rows = rows;
  }
  if (!bf16 && BlockedGemmPreferred() && m.rows > kPanelGemmMaxRows) {
    return RunBlocked(m, parts, shared_rows, device);
  }
  // bf16: column parts share A's rows rounded once, here.
  const uint16_t* shared_bf16_rows = nullptr;
  if (bf16 && column_parts) {
    uint16_t* rounded = reinterpret_cast<uint16_t*>(onednn::ThreadBuffer(
        ThreadBufferSlot::kBfloat16Source, m.rows * m.inner * sizeof(uint16_t)));
    RoundToBfloat16(shared_rows, m.rows * m.inner, rounded);
    shared_bf16_rows = rounded;
  }

  // `n` rows `a` (or in bf16 `a_bf16`, when already rounded) times the part's columns of B
  // into the dense block `c`.
  auto multiply = [&](const Part& part, int64_t n, const float* a, const uint16_t* a_bf16,
                      float* c) {
    const int64_t columns = part.end_column - part.first_column;
    const Plan& plan = PlanFor(m, n, columns, m.bias != nullptr);
    const int64_t offset = part.first_column * (m.b_transposed ? m.inner : 1);
    const std::shared_ptr<memory> weights =
        weights_->Get(plan.user_weights_md, plan.pd.weights_desc(), *m.b, offset);
    PanelMatrix panels;
    if (!bf16 && n <= kPanelGemmMaxRows && PanelGemmAvailable() &&
        AsPanels(plan.pd.weights_desc(), *weights, m.inner, columns, &panels)) {
      // Few rows: the product is bound by reading B, which PanelGemm streams faster.
      RunPanelKernel(PanelGemm, m, a, n, panels, part.first_column, c, columns);
      return;
    }
    const void* src = a;
    if (bf16) {
      if (a_bf16 == nullptr) {
        uint16_t* rounded = reinterpret_cast<uint16_t*>(onednn::ThreadBuffer(
            ThreadBufferSlot::kBfloat16Source, n * m.inner * sizeof(uint16_t)));
        RoundToBfloat16(a, n * m.inner, rounded);
        a_bf16 = rounded;
      }
      src = a_bf16;
    }
    const memory::desc& scratch_md = plan.pd.scratchpad_desc();
    // oneDNN takes non-const handles; it only reads src, weights and bias.
    std::unordered_map<int, memory> args = {
        {DNNL_ARG_SRC, memory(plan.src_md, onednn::Engine(), const_cast<void*>(src))},
        {DNNL_ARG_WEIGHTS, *weights},
        {DNNL_ARG_DST, memory(plan.dst_md, onednn::Engine(), c)},
        {DNNL_ARG_SCRATCHPAD,
         memory(scratch_md, onednn::Engine(),
                onednn::ThreadBuffer(ThreadBufferSlot::kScratchpad, scratch_md.get_size()))}};
    if (m.bias != nullptr) {
      args.emplace(DNNL_ARG_BIAS, memory(plan.bias_md, onednn::Engine(),
                                         const_cast<float*>(m.bias) + part.first_column));
    }
    plan.primitive.execute(onednn::ThreadStream(), args);
    onednn::ThreadStream().wait();
  };

  return onednn::RunParts(parts.size(), device, [&](size_t i) {
    const Part& part = parts[i];
    if (column_parts) {
      // The part's columns are strided in C; the product writes a dense block.
      const int64_t columns = part.end_column - part.first_column;
      float* block =
          onednn::ThreadBuffer(ThreadBufferSlot::kOutput, m.rows * columns * sizeof(float));
      if (sum_into_c) {
        CopyBlock(m.c + part.first_column, m.columns, block, columns, m.rows, columns);
      }
      multiply(part, m.rows, shared_rows, shared_bf16_rows, block);
      CopyBlock(block, columns, m.c + part.first_column, m.columns, m.rows, columns);
      return;
    }
    for (int64_t first = part.first_row; first < part.end_row; first += kMaxRowsPerCall) {
      const int64_t n = std::min(kMaxRowsPerCall, part.end_row - first);
      const float* a = m.a != nullptr ? m.a + first * m.inner : nullptr;
      if (a == nullptr) {
        float* rows =
            onednn::ThreadBuffer(ThreadBufferSlot::kPatches, n * m.inner * sizeof(float));
        m.fill_rows(first, first + n, rows);
        a = rows;
      }
      multiply(part, n, a, nullptr, m.c + first * m.columns);
    }
  });
}

}  // namespace tensord
