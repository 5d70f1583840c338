#include "kernels/nn/onednn_batch_matmul.h"

#include <algorithm>
#include <memory>
#include <unordered_map>
#include <vector>

#include "dnnl.hpp"
#include "kernels/nn/bfloat16_round.h"
#include "kernels/nn/onednn_util.h"
#include "kernels/nn/window_util.h"

namespace tensord {

using dnnl::memory;

struct OneDnnBatchMatMul::Plan {
  dnnl::matmul primitive;
  memory::desc src_md, weights_md, dst_md, scratch_md;
};

OneDnnBatchMatMul::OneDnnBatchMatMul(OneDnnConvOptions options) : options_(options) {}
OneDnnBatchMatMul::~OneDnnBatchMatMul() = default;

const OneDnnBatchMatMul::Plan& OneDnnBatchMatMul::PlanFor(const BatchMatMulOperands& p,
                                                          int64_t batches) const {
  const std::vector<int64_t> key = {batches, p.rows, p.inner, p.columns, p.a_transposed,
                                    p.b_transposed};
  return plans_.Get(key, [&] {
    auto plan = std::make_unique<Plan>();
    const memory::data_type operands = options_.precision == ComputePrecision::kBfloat16
                                           ? memory::data_type::bf16
                                           : memory::data_type::f32;
    const int64_t m = p.rows, k = p.inner, n = p.columns;
    plan->src_md = memory::desc({batches, m, k}, operands,
                                p.a_transposed ? memory::dims{m * k, 1, m}
                                               : memory::dims{m * k, k, 1});
    plan->weights_md = memory::desc({batches, k, n}, operands,
                                    p.b_transposed ? memory::dims{k * n, 1, k}
                                                   : memory::dims{k * n, n, 1});
    plan->dst_md = memory::desc({batches, m, n}, memory::data_type::f32,
                                memory::dims{m * n, n, 1});
    dnnl::primitive_attr attr;
    // Each execution brings its own scratch memory (the shared default is not safe for
    // concurrent executions).
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    const dnnl::matmul::primitive_desc pd(
        dnnl::matmul::desc(plan->src_md, plan->weights_md, plan->dst_md), attr,
        onednn::Engine());
    plan->scratch_md = pd.scratchpad_desc();
    plan->primitive = dnnl::matmul(pd);
    return plan;
  });
}

absl::Status OneDnnBatchMatMul::Run(const BatchMatMulOperands& p, int threads,
                                    const Eigen::ThreadPoolDevice& device) const {
  if (p.batches == 0 || p.rows == 0 || p.columns == 0) return absl::OkStatus();
  const int64_t macs = p.batches * p.rows * p.inner * p.columns;
  const int64_t parts =
      macs < onednn::kMinMacsToSplit ? 1 : std::min<int64_t>(std::max(threads, 1), p.batches);
  const bool bf16 = options_.precision == ComputePrecision::kBfloat16;
  const int64_t a_size = p.rows * p.inner, b_size = p.inner * p.columns;
  return onednn::RunParts(static_cast<size_t>(parts), device, [&](size_t i) {
    const int64_t first = p.batches * static_cast<int64_t>(i) / parts;
    const int64_t end = p.batches * static_cast<int64_t>(i + 1) / parts;
    const Plan& plan = PlanFor(p, end - first);
    const float* a = p.a + first * a_size;
    const float* b = p.b + first * b_size;
    void* a_handle = const_cast<float*>(a);  // oneDNN takes non-const handles; it only reads
    void* b_handle = const_cast<float*>(b);
    if (bf16) {
      const int64_t a_count = (end - first) * a_size, b_count = (end - first) * b_size;
      uint16_t* rounded = reinterpret_cast<uint16_t*>(onednn::ThreadBuffer(
          onednn::ThreadBufferSlot::kBfloat16Source, (a_count + b_count) * sizeof(uint16_t)));
      RoundToBfloat16(a, a_count, rounded);
      RoundToBfloat16(b, b_count, rounded + a_count);
      a_handle = rounded;
      b_handle = rounded + a_count;
    }
    std::unordered_map<int, memory> args = {
        {DNNL_ARG_SRC, memory(plan.src_md, onednn::Engine(), a_handle)},
        {DNNL_ARG_WEIGHTS, memory(plan.weights_md, onednn::Engine(), b_handle)},
        {DNNL_ARG_DST, memory(plan.dst_md, onednn::Engine(), p.c + first * p.rows * p.columns)},
        {DNNL_ARG_SCRATCHPAD,
         memory(plan.scratch_md, onednn::Engine(),
                onednn::ThreadBuffer(onednn::ThreadBufferSlot::kScratchpad,
                                     plan.scratch_md.get_size()))}};
    plan.primitive.execute(onednn::ThreadStream(), args);
    onednn::ThreadStream().wait();
  });
}

absl::Status OneDnnBatchMatMul::Compute(OpKernelContext* c, const BatchMatMulOperands& p) const {
  const onednn::RunningScope running;
  return WithNodeName(c->node_name(),
                      Run(p, onednn::FreeThreads(c->eigen_cpu_device(), running.running()),
                          c->eigen_cpu_device()));
}

}  // namespace tensord
