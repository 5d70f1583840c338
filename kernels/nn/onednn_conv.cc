#include "kernels/nn/onednn_conv.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "dnnl.hpp"
#include "kernels/nn/bfloat16_round.h"
#include "kernels/nn/onednn_util.h"
#include "runtime/framework/tensor_eigen.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace {

using dnnl::memory;
using Tag = dnnl::memory::format_tag;
constexpr auto kF32 = dnnl::memory::data_type::f32;
constexpr auto kBf16 = dnnl::memory::data_type::bf16;

// The padding after the data that makes oneDNN's output size formula give TensorFlow's size.
int64_t PadAfter(int64_t out, int64_t in, int64_t k, int64_t stride, int64_t dilation,
                 int64_t pad_before) {
  const int64_t extent = (k - 1) * dilation + 1;
  return std::max<int64_t>(0, (out - 1) * stride + extent - in - pad_before);
}

}  // namespace

struct OneDnnConv2D::Plan {
  dnnl::convolution_forward::primitive_desc pd;
  dnnl::convolution_forward primitive;
  memory::desc src_md, dst_md, user_weights_md, bias_md;
};

namespace {

// One thread's share of a convolution: a range of images, or for a single image a band of
// output rows with the input rows it reads. Offsets are in elements.
struct Part {
  Window2DGeometry g;
  int64_t input_offset = 0;
  int64_t output_offset = 0;
};

std::vector<Part> Split(const Window2DGeometry& g, int64_t out_depth, int64_t macs_per_output,
                        int threads) {
  const int64_t macs = g.batch * g.out_rows * g.out_cols * out_depth * macs_per_output;
  if (threads <= 1 || macs < onednn::kMinMacsToSplit) return {Part{g}};
  std::vector<Part> parts;
  if (g.batch > 1) {
    const int64_t n = std::min<int64_t>(threads, g.batch);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t b0 = g.batch * i / n, b1 = g.batch * (i + 1) / n;
      Part part{g, b0 * g.in_rows * g.in_cols * g.depth,
                b0 * g.out_rows * g.out_cols * out_depth};
      part.g.batch = b1 - b0;
      parts.push_back(part);
    }
    return parts;
  }
  const int64_t n = std::min<int64_t>(threads, g.out_rows);
  const int64_t extent = (g.k_rows - 1) * g.dil_rows + 1;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r0 = g.out_rows * i / n, r1 = g.out_rows * (i + 1) / n;
    const int64_t first = r0 * g.stride_rows - g.pad_top;  // input rows the band reads,
    const int64_t end = (r1 - 1) * g.stride_rows - g.pad_top + extent;  // padding included
    const int64_t in_begin = std::max<int64_t>(0, first);
    const int64_t in_end = std::min(g.in_rows, end);
    if (in_end <= in_begin) return {Part{g}};  // a band entirely in padding: keep it whole
    Part part{g, in_begin * g.in_cols * g.depth, r0 * g.out_cols * out_depth};
    part.g.in_rows = in_end - in_begin;
    part.g.pad_top = in_begin - first;
    part.g.out_rows = r1 - r0;
    parts.push_back(part);
  }
  return parts;
}

}  // namespace

OneDnnConv2D::OneDnnConv2D(OneDnnConvOptions options)
    : options_(options), gemm_(options), weights_(std::make_unique<onednn::WeightsCache>()) {}
OneDnnConv2D::~OneDnnConv2D() = default;

const OneDnnConv2D::Plan& OneDnnConv2D::PlanFor(const Window2DGeometry& g, int64_t groups,
                                                int64_t out_depth, bool with_bias,
                                                bool epilogue) const {
  const std::vector<int64_t> key = {g.batch,       g.in_rows,  g.in_cols,  g.depth,   g.k_rows,
                                    g.k_cols,      out_depth,  groups,     g.stride_rows,
                                    g.stride_cols, g.dil_rows, g.dil_cols, g.pad_top, g.pad_left,
                                    g.out_rows,    g.out_cols, with_bias, epilogue};
  return plans_.Get(key, [&] {
    auto plan = std::make_unique<Plan>();
    const memory::data_type operands =
        options_.precision == ComputePrecision::kBfloat16 ? kBf16 : kF32;
    plan->src_md =
        memory::desc({g.batch, g.depth, g.in_rows, g.in_cols}, operands, Tag::nhwc);
    plan->dst_md = memory::desc({g.batch, out_depth, g.out_rows, g.out_cols}, kF32, Tag::nhwc);
    // TensorFlow's filter order (rows, cols, in per group, group, out per group) is oneDNN's
    // hwio without groups and hwigo with them.
    const memory::dims weight_dims =
        groups == 1
            ? memory::dims{out_depth, g.depth, g.k_rows, g.k_cols}
            : memory::dims{groups, out_depth / groups, g.depth / groups, g.k_rows, g.k_cols};
    plan->user_weights_md = memory::desc(weight_dims, kF32, groups == 1 ? Tag::hwio : Tag::hwigo);
    plan->bias_md = memory::desc({out_depth}, kF32, Tag::x);
    const memory::desc any_weights(weight_dims, operands, Tag::any);
    const memory::dims strides = {g.stride_rows, g.stride_cols};
    const memory::dims dilates = {g.dil_rows - 1, g.dil_cols - 1};
    const memory::dims pad_l = {g.pad_top, g.pad_left};
    const memory::dims pad_r = {
        PadAfter(g.out_rows, g.in_rows, g.k_rows, g.stride_rows, g.dil_rows, g.pad_top),
        PadAfter(g.out_cols, g.in_cols, g.k_cols, g.stride_cols, g.dil_cols, g.pad_left)};
    const auto desc =
        with_bias ? dnnl::convolution_forward::desc(
                        dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                        plan->src_md, any_weights, plan->bias_md, plan->dst_md, strides, dilates,
                        pad_l, pad_r)
                  : dnnl::convolution_forward::desc(
                        dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                        plan->src_md, any_weights, plan->dst_md, strides, dilates, pad_l, pad_r);
    dnnl::primitive_attr attr;
    if (epilogue) attr.set_post_ops(onednn::PostOps(options_));
    // Each execution brings its own scratch memory: the library-managed default is shared
    // between primitives and not safe for concurrent executions.
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    plan->pd = dnnl::convolution_forward::primitive_desc(desc, attr, onednn::Engine());
    plan->primitive = dnnl::convolution_forward(plan->pd);
    return plan;
  });
}

absl::Status OneDnnConv2D::Compute(OpKernelContext* c, const Window2DGeometry& g,
                                   const Tensor& input, const Tensor& filter, int64_t groups,
                                   int64_t out_depth) const {
  if (c->num_inputs() < (options_.add_residual ? 4 : options_.bias ? 3 : 2)) {
    return c->InvalidArgument("has fewer inputs than its fused_ops need");
  }
  const Tensor* bias = options_.bias ? &c->input(2) : nullptr;
  if (bias != nullptr && (bias->dims() != 1 || bias->dim_size(0) != out_depth)) {
    return c->InvalidArgument(absl::StrCat("bias must be a vector of ", out_depth,
                                           " values, got shape ", bias->shape().DebugString()));
  }
  const Tensor* residual = options_.add_residual ? &c->input(3) : nullptr;
  // The residual's buffer, when this is its last reader, becomes the output: it holds the
  // values the convolution is summed into (see Run).
  const TensorShape shape{g.batch, g.out_rows, g.out_cols, out_depth};
  Tensor* output = residual != nullptr
                       ? c->forward_input_or_allocate_output({3}, 0, DT_FLOAT, shape)
                       : c->allocate_output_for_overwrite(0, DT_FLOAT, shape);
  if (output->NumElements() == 0) return absl::OkStatus();
  const absl::Status s =
      Run(g, input, filter, groups, out_depth, bias, residual, c->eigen_cpu_device(), output);
  return s.ok() ? s : WithNodeName(c->node_name(), s);
}

absl::Status OneDnnConv2D::Run(const Window2DGeometry& g, const Tensor& input,
                               const Tensor& filter, int64_t groups, int64_t out_depth,
                               const Tensor* bias, const Tensor* residual,
                               const Eigen::ThreadPoolDevice& device, Tensor* output) const {
  // The residual joins the convolution's own pass when it has the output's shape; otherwise
  // (a broadcast add the graph pass could not rule out) it is added afterwards.
  bool epilogue = true;
  if (options_.add_residual) {
    if (residual == nullptr || residual->dtype() != DT_FLOAT) {
      return absl::InvalidArgumentError("the residual to add must be a float tensor");
    }
    if (residual->shape() == output->shape()) {
      if (residual->raw_data() != output->raw_data()) {  // not already the residual's buffer
        std::memcpy(output->raw_data(), residual->raw_data(), output->TotalBytes());
      }
    } else {
      TENSORD_RETURN_IF_ERROR(CheckBroadcastable(*residual, *output));
      epilogue = false;
    }
  }
  const onednn::RunningScope running;
  const int threads = onednn::FreeThreads(device, running.running());
  if (OneDnnGemmConv::Prefers(g, groups)) {
    TENSORD_RETURN_IF_ERROR(
        gemm_.Run(g, input, filter, out_depth, bias, epilogue, threads, device, output));
  } else {
    const int64_t macs_per_output = g.k_rows * g.k_cols * (g.depth / groups);
    const std::vector<Part> parts = Split(g, out_depth, macs_per_output, threads);
    TENSORD_RETURN_IF_ERROR(onednn::RunParts(parts.size(), device, [&](size_t i) {
      const Part& part = parts[i];
      const Plan& plan = PlanFor(part.g, groups, out_depth, bias != nullptr, epilogue);
      const std::shared_ptr<memory> weights =
          weights_->Get(plan.user_weights_md, plan.pd.weights_desc(), filter);
      const float* src = input.data<float>() + part.input_offset;
      void* src_handle = const_cast<float*>(src);  // oneDNN only reads src, weights and bias
      if (options_.precision == ComputePrecision::kBfloat16) {
        // The part's input rows are contiguous (whole images, or whole rows of one image).
        const int64_t n = part.g.batch * part.g.in_rows * part.g.in_cols * part.g.depth;
        uint16_t* rounded = reinterpret_cast<uint16_t*>(onednn::ThreadBuffer(
            onednn::ThreadBufferSlot::kBfloat16Source, n * sizeof(uint16_t)));
        RoundToBfloat16(src, n, rounded);
        src_handle = rounded;
      }
      const memory::desc& scratch_md = plan.pd.scratchpad_desc();
      std::unordered_map<int, memory> args = {
          {DNNL_ARG_SRC, memory(plan.src_md, onednn::Engine(), src_handle)},
          {DNNL_ARG_WEIGHTS, *weights},
          {DNNL_ARG_DST,
           memory(plan.dst_md, onednn::Engine(), output->data<float>() + part.output_offset)},
          {DNNL_ARG_SCRATCHPAD,
           memory(scratch_md, onednn::Engine(),
                  onednn::ThreadBuffer(onednn::ThreadBufferSlot::kScratchpad,
                                       scratch_md.get_size()))}};
      if (bias != nullptr) {
        args.emplace(DNNL_ARG_BIAS, memory(plan.bias_md, onednn::Engine(),
                                           const_cast<float*>(bias->data<float>())));
      }
      plan.primitive.execute(onednn::ThreadStream(), args);
      onednn::ThreadStream().wait();
    }));
  }
  if (!epilogue) AddBroadcastAndActivate(options_, *residual, output);
  return absl::OkStatus();
}

}  // namespace tensord
