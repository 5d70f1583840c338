#include "kernels/nn/onednn_conv.h"

#include <omp.h>

#include <algorithm>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "dnnl.hpp"

namespace tensord {
namespace {

using dnnl::memory;
using Tag = dnnl::memory::format_tag;
constexpr auto kF32 = dnnl::memory::data_type::f32;

const dnnl::engine& Engine() {
  static const auto* const kEngine = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *kEngine;
}

dnnl::stream& ThreadStream() {
  thread_local dnnl::stream stream(Engine());
  return stream;
}

dnnl::post_ops Activation(const OneDnnConvOptions& options) {
  dnnl::post_ops ops;
  switch (options.activation) {
    case FusedActivation::kNone:
      break;
    case FusedActivation::kRelu:
      ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
      break;
    case FusedActivation::kRelu6:
      ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_clip, 0.0f, 6.0f);
      break;
    case FusedActivation::kElu:
      ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_elu, 1.0f, 0.0f);
      break;
    case FusedActivation::kLeakyRelu:
      ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, options.leakyrelu_alpha, 0.0f);
      break;
  }
  return ops;
}

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

  std::mutex mu;
  Tensor weights_source;                  // the filter the reordered copy was made from
  std::shared_ptr<memory> weights;        // in pd.weights_desc() layout; guarded by mu
};

OneDnnConv2D::OneDnnConv2D(OneDnnConvOptions options) : options_(options) {}
OneDnnConv2D::~OneDnnConv2D() = default;

OneDnnConv2D::Plan* OneDnnConv2D::PlanFor(const Window2DGeometry& g, int64_t out_depth,
                                                bool with_bias) const {
  const std::vector<int64_t> key = {g.batch,    g.in_rows,     g.in_cols,     g.depth,
                                    g.k_rows,   g.k_cols,      out_depth,     g.stride_rows,
                                    g.stride_cols, g.dil_rows, g.dil_cols,    g.pad_top,
                                    g.pad_left, g.out_rows,    g.out_cols,    with_bias};
  std::lock_guard<std::mutex> lock(mu_);
  auto it = plans_.find(key);
  if (it != plans_.end()) return it->second.get();

  auto plan = std::make_unique<Plan>();
  plan->src_md = memory::desc({g.batch, g.depth, g.in_rows, g.in_cols}, kF32, Tag::nhwc);
  plan->dst_md = memory::desc({g.batch, out_depth, g.out_rows, g.out_cols}, kF32, Tag::nhwc);
  const memory::dims weight_dims = {out_depth, g.depth, g.k_rows, g.k_cols};
  plan->user_weights_md = memory::desc(weight_dims, kF32, Tag::hwio);
  plan->bias_md = memory::desc({out_depth}, kF32, Tag::x);
  const memory::desc any_weights(weight_dims, kF32, Tag::any);
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
  attr.set_post_ops(Activation(options_));
  plan->pd = dnnl::convolution_forward::primitive_desc(desc, attr, Engine());
  plan->primitive = dnnl::convolution_forward(plan->pd);
  return plans_.emplace(key, std::move(plan)).first->second.get();
}

absl::Status OneDnnConv2D::Run(const Window2DGeometry& g, const Tensor& input,
                               const Tensor& filter, const Tensor* bias, int threads,
                               Tensor* output) const {
  // oneDNN reports failures (unsupported shapes, out of memory) by throwing; nothing may
  // escape into the executor.
  try {
    Plan& plan = *PlanFor(g, filter.dim_size(3), bias != nullptr);
    std::shared_ptr<memory> weights;
    {
      std::lock_guard<std::mutex> lock(plan.mu);
      if (plan.weights == nullptr || !plan.weights_source.SharesBufferWith(filter) ||
          plan.weights_source.raw_data() != filter.raw_data()) {
        memory user(plan.user_weights_md, Engine(), const_cast<float*>(filter.data<float>()));
        auto reordered = std::make_shared<memory>(plan.pd.weights_desc(), Engine());
        dnnl::reorder(user, *reordered).execute(ThreadStream(), user, *reordered);
        ThreadStream().wait();
        plan.weights = std::move(reordered);
        plan.weights_source = filter;
      }
      weights = plan.weights;  // in-flight runs keep theirs if another filter replaces it
    }
    // oneDNN takes non-const handles; it only reads src, weights and bias.
    memory src(plan.src_md, Engine(), const_cast<float*>(input.data<float>()));
    memory dst(plan.dst_md, Engine(), output->data<float>());
    std::unordered_map<int, memory> args = {
        {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, *weights}, {DNNL_ARG_DST, dst}};
    if (bias != nullptr) {
      args.emplace(DNNL_ARG_BIAS,
                   memory(plan.bias_md, Engine(), const_cast<float*>(bias->data<float>())));
    }
    omp_set_num_threads(std::max(1, threads));
    plan.primitive.execute(ThreadStream(), args);
    ThreadStream().wait();
  } catch (const dnnl::error& e) {
    return absl::InternalError(absl::StrCat("oneDNN convolution failed: ", e.what()));
  }
  return absl::OkStatus();
}

}  // namespace tensord
