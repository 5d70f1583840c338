#include "kernels/nn/onednn_conv.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <atomic>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "dnnl.hpp"
#include "runtime/util/status_macros.h"

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

// Scratch memory for the primitive this thread executes: a thread runs one at a time, and
// reusing the buffer avoids an allocation (and its page faults) per call.
void* ThreadScratch(size_t bytes) {
  struct Buffer {
    ~Buffer() { std::free(data); }
    void* data = nullptr;
    size_t size = 0;
  };
  thread_local Buffer buffer;
  if (bytes > buffer.size) {
    std::free(buffer.data);
    buffer.size = (bytes + 63) / 64 * 64;
    buffer.data = std::aligned_alloc(64, buffer.size);
    if (buffer.data == nullptr) {
      buffer.size = 0;
      throw std::bad_alloc();
    }
  }
  return buffer.data;
}

dnnl::post_ops PostOps(const OneDnnConvOptions& options) {
  dnnl::post_ops ops;
  // The residual is copied into the output first; "sum" adds the convolution to it.
  if (options.add_residual) ops.append_sum(1.0f);
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

float Activate(const OneDnnConvOptions& options, float v) {
  switch (options.activation) {
    case FusedActivation::kNone: return v;
    case FusedActivation::kRelu: return std::max(v, 0.0f);
    case FusedActivation::kRelu6: return std::min(std::max(v, 0.0f), 6.0f);
    case FusedActivation::kElu: return v > 0 ? v : std::expm1(v);
    case FusedActivation::kLeakyRelu: return v > 0 ? v : options.leakyrelu_alpha * v;
  }
  return v;
}

// NumPy broadcasting of `residual` to `output`'s shape (dims aligned from the right, each 1 or
// equal), which the residual add must satisfy.
absl::Status CheckBroadcastable(const Tensor& residual, const Tensor& output) {
  bool ok = residual.dims() <= output.dims();
  for (int i = 1; ok && i <= residual.dims(); ++i) {
    const int64_t r = residual.dim_size(residual.dims() - i);
    ok = r == 1 || r == output.dim_size(output.dims() - i);
  }
  if (!ok) {
    return absl::InvalidArgumentError(absl::StrCat("cannot add a residual of shape ",
                                                   residual.shape().DebugString(),
                                                   " to the output of shape ",
                                                   output.shape().DebugString()));
  }
  return absl::OkStatus();
}

// output = activation(output + broadcast(residual)), element by element: the rare shapes the
// fused pass cannot take.
void AddBroadcastAndActivate(const OneDnnConvOptions& options, const Tensor& residual,
                             Tensor* output) {
  const int rank = output->dims();
  std::vector<int64_t> strides(rank, 0);  // residual element stride per output dim
  int64_t stride = 1;
  for (int i = 1; i <= residual.dims(); ++i) {
    const int64_t r = residual.dim_size(residual.dims() - i);
    if (r != 1) strides[rank - i] = stride;
    stride *= r;
  }
  float* y = output->data<float>();
  const float* r = residual.data<float>();
  std::vector<int64_t> index(rank, 0);
  for (int64_t i = 0; i < output->NumElements(); ++i) {
    int64_t offset = 0;
    for (int d = 0; d < rank; ++d) offset += index[d] * strides[d];
    y[i] = Activate(options, y[i] + r[offset]);
    for (int d = rank - 1; d >= 0 && ++index[d] == output->dim_size(d); --d) index[d] = 0;
  }
}

// The padding after the data that makes oneDNN's output size formula give TensorFlow's size.
int64_t PadAfter(int64_t out, int64_t in, int64_t k, int64_t stride, int64_t dilation,
                 int64_t pad_before) {
  const int64_t extent = (k - 1) * dilation + 1;
  return std::max<int64_t>(0, (out - 1) * stride + extent - in - pad_before);
}

}  // namespace

OneDnnConvOptions FusionFromAttrs(OpKernelConstruction* c) {
  OneDnnConvOptions options;
  if (!c->HasAttr("fused_ops")) return options;
  std::vector<std::string> fused;
  if (!c->GetAttr("fused_ops", &fused)) return options;
  if (c->HasAttr("leakyrelu_alpha")) c->GetAttr("leakyrelu_alpha", &options.leakyrelu_alpha);
  static const auto* const kActivations = new std::map<std::string, FusedActivation>{
      {"Relu", FusedActivation::kRelu}, {"Relu6", FusedActivation::kRelu6},
      {"Elu", FusedActivation::kElu}, {"LeakyRelu", FusedActivation::kLeakyRelu}};
  size_t next = 1;
  const bool bias = !fused.empty() && fused[0] == "BiasAdd";
  options.add_residual = bias && fused.size() > next && fused[next] == "Add";
  if (options.add_residual) ++next;
  const bool activation = bias && fused.size() == next + 1 && kActivations->count(fused[next]);
  if (!bias || (fused.size() != next && !activation)) {
    c->SetError(absl::UnimplementedError(
        absl::StrCat("fused_ops [", absl::StrJoin(fused, ", "), "] are not supported")));
    return options;
  }
  options.bias = true;
  if (activation) options.activation = kActivations->at(fused[next]);
  return options;
}

struct OneDnnConv2D::Plan {
  dnnl::convolution_forward::primitive_desc pd;
  dnnl::convolution_forward primitive;
  memory::desc src_md, dst_md, user_weights_md, bias_md;
};

struct OneDnnConv2D::Weights {
  memory::desc desc;                // the layout the primitives want
  Tensor source;                    // the filter the reordered copy was made from
  std::shared_ptr<memory> reordered;
};

namespace {

// Below this many multiply-adds a convolution runs on one thread: handing parts to the pool
// costs more than it saves.
constexpr int64_t kMinMacsToSplit = int64_t{1} << 18;

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
  if (threads <= 1 || macs < kMinMacsToSplit) return {Part{g}};
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

OneDnnConv2D::OneDnnConv2D(OneDnnConvOptions options) : options_(options) {}
OneDnnConv2D::~OneDnnConv2D() = default;

const OneDnnConv2D::Plan& OneDnnConv2D::PlanFor(const Window2DGeometry& g, int64_t groups,
                                                int64_t out_depth, bool with_bias,
                                                bool epilogue) const {
  const std::vector<int64_t> key = {g.batch,       g.in_rows,  g.in_cols,  g.depth,   g.k_rows,
                                    g.k_cols,      out_depth,  groups,     g.stride_rows,
                                    g.stride_cols, g.dil_rows, g.dil_cols, g.pad_top, g.pad_left,
                                    g.out_rows,    g.out_cols, with_bias, epilogue};
  std::lock_guard<std::mutex> lock(mu_);
  auto it = plans_.find(key);
  if (it != plans_.end()) return *it->second;

  auto plan = std::make_unique<Plan>();
  plan->src_md = memory::desc({g.batch, g.depth, g.in_rows, g.in_cols}, kF32, Tag::nhwc);
  plan->dst_md = memory::desc({g.batch, out_depth, g.out_rows, g.out_cols}, kF32, Tag::nhwc);
  // TensorFlow's filter order (rows, cols, in per group, group, out per group) is oneDNN's
  // hwio without groups and hwigo with them.
  const memory::dims weight_dims =
      groups == 1 ? memory::dims{out_depth, g.depth, g.k_rows, g.k_cols}
                  : memory::dims{groups, out_depth / groups, g.depth / groups, g.k_rows, g.k_cols};
  plan->user_weights_md = memory::desc(weight_dims, kF32, groups == 1 ? Tag::hwio : Tag::hwigo);
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
  if (epilogue) attr.set_post_ops(PostOps(options_));
  // Each execution brings its own scratch memory: the library-managed default is shared
  // between primitives and not safe for concurrent executions.
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  plan->pd = dnnl::convolution_forward::primitive_desc(desc, attr, Engine());
  plan->primitive = dnnl::convolution_forward(plan->pd);
  return *plans_.emplace(key, std::move(plan)).first->second;
}

std::shared_ptr<memory> OneDnnConv2D::WeightsFor(const Plan& plan, const Tensor& filter) const {
  std::lock_guard<std::mutex> lock(mu_);
  const memory::desc wanted = plan.pd.weights_desc();
  Weights* slot = nullptr;
  for (Weights& w : weights_) {
    if (w.desc == wanted) slot = &w;
  }
  if (slot != nullptr && slot->source.SharesBufferWith(filter) &&
      slot->source.raw_data() == filter.raw_data()) {
    return slot->reordered;  // in-flight runs keep theirs if another filter replaces it
  }
  memory user(plan.user_weights_md, Engine(), const_cast<float*>(filter.data<float>()));
  auto reordered = std::make_shared<memory>(wanted, Engine());
  dnnl::reorder(user, *reordered).execute(ThreadStream(), user, *reordered);
  ThreadStream().wait();
  if (slot == nullptr) slot = &weights_.emplace_back(Weights{wanted, Tensor(), nullptr});
  slot->source = filter;
  slot->reordered = reordered;
  return reordered;
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
  Tensor* output =
      c->allocate_output(0, DT_FLOAT, TensorShape{g.batch, g.out_rows, g.out_cols, out_depth});
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
      std::memcpy(output->raw_data(), residual->raw_data(), output->TotalBytes());
    } else {
      TENSORD_RETURN_IF_ERROR(CheckBroadcastable(*residual, *output));
      epilogue = false;
    }
  }
  // Concurrent requests already keep the pool's threads busy: split only the share of threads
  // that the convolutions running right now leave free, or a part would wait in the queue
  // while its caller sits idle.
  static std::atomic<int> running{0};
  struct Count {
    Count() { ++running; }
    ~Count() { --running; }
  } count;
  const int free_threads = std::max(1, device.numThreads() / std::max(1, running.load()));
  const int64_t macs_per_output = g.k_rows * g.k_cols * (g.depth / groups);
  const std::vector<Part> parts = Split(g, out_depth, macs_per_output, free_threads);
  std::vector<absl::Status> statuses(parts.size());
  auto run_part = [&](size_t i) {
    // oneDNN reports failures (unsupported shapes, out of memory) by throwing; nothing may
    // escape into the executor.
    try {
      const Part& part = parts[i];
      const Plan& plan = PlanFor(part.g, groups, out_depth, bias != nullptr, epilogue);
      const std::shared_ptr<memory> weights = WeightsFor(plan, filter);
      // oneDNN takes non-const handles; it only reads src, weights and bias.
      memory src(plan.src_md, Engine(),
                 const_cast<float*>(input.data<float>()) + part.input_offset);
      memory dst(plan.dst_md, Engine(), output->data<float>() + part.output_offset);
      memory scratchpad(plan.pd.scratchpad_desc(), Engine(),
                        ThreadScratch(plan.pd.scratchpad_desc().get_size()));
      std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, src},
                                              {DNNL_ARG_WEIGHTS, *weights},
                                              {DNNL_ARG_DST, dst},
                                              {DNNL_ARG_SCRATCHPAD, scratchpad}};
      if (bias != nullptr) {
        args.emplace(DNNL_ARG_BIAS,
                     memory(plan.bias_md, Engine(), const_cast<float*>(bias->data<float>())));
      }
      // One thread per call: parallelism comes from the parts on our own pool. OpenMP teams
      // would spin-wait on cores that the pool and other requests need.
      omp_set_num_threads(1);
      plan.primitive.execute(ThreadStream(), args);
      ThreadStream().wait();
    } catch (const dnnl::error& e) {
      statuses[i] = absl::InternalError(absl::StrCat("oneDNN convolution failed: ", e.what()));
    } catch (const std::bad_alloc&) {
      statuses[i] = absl::ResourceExhaustedError("out of memory for convolution scratch space");
    }
  };
  Eigen::Barrier barrier(static_cast<unsigned>(parts.size() - 1));
  for (size_t i = 1; i < parts.size(); ++i) {
    device.getPool()->Schedule([&run_part, &barrier, i] {
      run_part(i);
      barrier.Notify();
    });
  }
  run_part(0);
  barrier.Wait();
  for (const absl::Status& s : statuses) {
    if (!s.ok()) return s;
  }
  if (!epilogue) AddBroadcastAndActivate(options_, *residual, output);
  return absl::OkStatus();
}

}  // namespace tensord
