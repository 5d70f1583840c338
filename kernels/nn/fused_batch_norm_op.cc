// FusedBatchNorm, FusedBatchNormV2 and FusedBatchNormV3 on CPU (float x, float statistics).
//
// Inference (is_training=false, Keras BatchNormalization in serving graphs):
//   y = (x - mean) * (rsqrt(variance + epsilon) * scale) + offset; batch_mean/batch_variance pass
//   mean/variance through, and so do the reserve spaces.
// Training mode (is_training=true; Keras 2 LayerNormalization runs it at inference in NCHW with
// one "channel" per normalised row): per-channel mean and biased variance of x itself; the
// batch_variance output is Bessel-corrected, reserve_space_1/2 hold the mean and biased variance.
// Sums run sequentially over the non-channel positions in (batch, spatial) order, the order in
// which TensorFlow's CPU kernel reduces, so results match it closely.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/nn/window_util.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/framework/parallel_for.h"
#include "runtime/framework/tensor_eigen.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace {

using Index = Eigen::Index;
using Array = Eigen::Array<float, Eigen::Dynamic, 1>;
using Vec = Eigen::Map<Array>;
using ConstVec = Eigen::Map<const Array>;

// x viewed as [outer, channels, inner]: channels-last formats have inner == 1, channels-first
// formats have outer == batch.
struct ChannelLayout {
  bool channels_last;
  Index outer, channels, inner;
};

// Per-channel statistics of a training-mode batch norm.
struct Moments {
  Array mean, variance;  // variance is biased (divided by the count)
};

Moments ComputeMoments(const Eigen::ThreadPoolDevice& d, const ChannelLayout& l, const float* x) {
  const Index count = l.outer * l.inner;
  const float inv_count = 1.0f / static_cast<float>(count);
  Moments m{Array::Zero(l.channels), Array::Zero(l.channels)};
  // Each task owns a block of channels and walks every position in order.
  const Eigen::TensorOpCost cost(count * sizeof(float), sizeof(float), count * 3);
  ParallelFor(d, l.channels, cost, [&](Index begin, Index end) {
    const Index n = end - begin;
    if (l.channels_last) {
      Vec sum(m.mean.data() + begin, n);
      for (Index r = 0; r < l.outer; ++r) sum += ConstVec(x + r * l.channels + begin, n);
      sum *= inv_count;
      Vec sq(m.variance.data() + begin, n);
      for (Index r = 0; r < l.outer; ++r) {
        sq += (ConstVec(x + r * l.channels + begin, n) - sum).square();
      }
      sq *= inv_count;
      return;
    }
    for (Index c = begin; c < end; ++c) {
      float sum = 0;
      for (Index o = 0; o < l.outer; ++o) {
        const float* row = x + (o * l.channels + c) * l.inner;
        for (Index i = 0; i < l.inner; ++i) sum += row[i];
      }
      const float mean = sum * inv_count;
      float sq = 0;
      for (Index o = 0; o < l.outer; ++o) {
        const float* row = x + (o * l.channels + c) * l.inner;
        for (Index i = 0; i < l.inner; ++i) sq += (row[i] - mean) * (row[i] - mean);
      }
      m.mean[c] = mean;
      m.variance[c] = sq * inv_count;
    }
  });
  return m;
}

// y = (x - mean[c]) * factor[c] + offset[c].
void Normalize(const Eigen::ThreadPoolDevice& d, const ChannelLayout& l, const float* x,
               const Array& mean, const Array& factor, const float* offset, float* y) {
  const ConstVec offset_vec(offset, l.channels);
  if (l.channels_last) {
    const Eigen::TensorOpCost cost(l.channels * sizeof(float), l.channels * sizeof(float),
                                   l.channels * 3);
    ParallelFor(d, l.outer, cost, [&](Index begin, Index end) {
      for (Index r = begin; r < end; ++r) {
        Vec(y + r * l.channels, l.channels) =
            (ConstVec(x + r * l.channels, l.channels) - mean) * factor + offset_vec;
      }
    });
    return;
  }
  const Eigen::TensorOpCost cost(l.inner * sizeof(float), l.inner * sizeof(float), l.inner * 3);
  ParallelFor(d, l.outer * l.channels, cost, [&](Index begin, Index end) {
    for (Index row = begin; row < end; ++row) {
      const Index c = row % l.channels;
      Vec(y + row * l.inner, l.inner) =
          (ConstVec(x + row * l.inner, l.inner) - mean[c]) * factor[c] + offset_vec[c];
    }
  });
}

class FusedBatchNormOp : public OpKernel {
 public:
  explicit FusedBatchNormOp(OpKernelConstruction* c)
      : OpKernel(c), has_reserve_space_3_(c->op() == "FusedBatchNormV3") {
    std::string data_format;
    if (!c->GetAttr("epsilon", &epsilon_) ||
        !c->GetAttr("exponential_avg_factor", &exponential_avg_factor_) ||
        !c->GetAttr("data_format", &data_format) || !c->GetAttr("is_training", &is_training_)) {
      return;
    }
    if (data_format == "NHWC" || data_format == "NDHWC") {
      channels_last_ = true;
    } else if (data_format == "NCHW" || data_format == "NCDHW") {
      channels_last_ = false;
    } else {
      c->SetError(WithNodeName(c->name(), absl::InvalidArgumentError(absl::StrCat(
                                              "invalid data_format '", data_format, "'"))));
    }
  }

  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& x = c->input(0);
    const Tensor& scale = c->input(1);
    const Tensor& offset = c->input(2);
    const Tensor& mean = c->input(3);
    const Tensor& variance = c->input(4);
    if (x.dims() != 4 && x.dims() != 5) {
      return c->InvalidArgument(
          absl::StrCat("input must be 4 or 5-dimensional, got shape ", x.shape().DebugString()));
    }
    const char* names[] = {"scale", "offset", "mean", "variance"};
    for (int i = 1; i <= 4; ++i) {
      if (c->input(i).dims() != 1) {
        return c->InvalidArgument(absl::StrCat(names[i - 1], " must be 1-dimensional, got shape ",
                                               c->input(i).shape().DebugString()));
      }
    }
    ChannelLayout l;
    l.channels_last = channels_last_;
    l.channels = x.dim_size(channels_last_ ? x.dims() - 1 : 1);
    l.outer = channels_last_ ? x.NumElements() / std::max<Index>(l.channels, 1) : x.dim_size(0);
    l.inner = channels_last_ ? 1 : x.NumElements() / std::max<Index>(l.outer * l.channels, 1);
    const bool needs_stats = !is_training_ || exponential_avg_factor_ != 1.0f;
    for (int i = 1; i <= 4; ++i) {
      if (i >= 3 && !needs_stats) break;
      if (c->input(i).NumElements() != l.channels) {
        return c->InvalidArgument(absl::StrCat(
            i >= 3
                ? (is_training_ ? "when exponential_avg_factor != 1, " : "when is_training=false, ")
                : "",
            names[i - 1], " must have the same number of elements as the channels of x, got ",
            c->input(i).NumElements(), " and ", l.channels));
      }
    }

    Tensor* y = c->allocate_output(0, DT_FLOAT, x.shape());
    const TensorShape stats_shape{l.channels};
    float* batch_mean = c->allocate_output(1, DT_FLOAT, stats_shape)->data<float>();
    float* batch_var = c->allocate_output(2, DT_FLOAT, stats_shape)->data<float>();
    float* saved_mean = c->allocate_output(3, DT_FLOAT, stats_shape)->data<float>();
    float* saved_var = c->allocate_output(4, DT_FLOAT, stats_shape)->data<float>();
    if (has_reserve_space_3_) c->allocate_output(5, DT_FLOAT, TensorShape{});

    const Index n = l.channels;
    if (x.NumElements() == 0) {
      // Like TensorFlow: the statistics of an empty batch are NaN.
      for (float* out : {batch_mean, batch_var, saved_mean, saved_var}) {
        Vec(out, n).setConstant(std::numeric_limits<float>::quiet_NaN());
      }
      return absl::OkStatus();
    }

    const Eigen::ThreadPoolDevice& d = c->eigen_cpu_device();
    const ConstVec scale_vec(scale.data<float>(), n);
    if (!is_training_) {
      const ConstVec mean_vec(mean.data<float>(), n);
      const ConstVec var_vec(variance.data<float>(), n);
      const Array factor = (var_vec + epsilon_).sqrt().inverse() * scale_vec;
      Normalize(d, l, x.data<float>(), mean_vec, factor, offset.data<float>(), y->data<float>());
      for (float* out : {batch_mean, saved_mean}) Vec(out, n) = mean_vec;
      for (float* out : {batch_var, saved_var}) Vec(out, n) = var_vec;
      return absl::OkStatus();
    }

    const Moments m = ComputeMoments(d, l, x.data<float>());
    const Array factor = (m.variance + epsilon_).sqrt().inverse() * scale_vec;
    Normalize(d, l, x.data<float>(), m.mean, factor, offset.data<float>(), y->data<float>());
    Vec(saved_mean, n) = m.mean;
    Vec(saved_var, n) = m.variance;
    // Bessel's correction, n / (n - 1), with a single position counting as n - 1 = 1.
    const Index count = l.outer * l.inner;
    const float bessel = static_cast<float>(count) / static_cast<float>(count > 1 ? count - 1 : 1);
    if (exponential_avg_factor_ == 1.0f) {
      Vec(batch_mean, n) = m.mean;
      Vec(batch_var, n) = m.variance * bessel;
    } else {
      const float keep = 1.0f - exponential_avg_factor_;
      Vec(batch_mean, n) =
          keep * ConstVec(mean.data<float>(), n) + exponential_avg_factor_ * m.mean;
      Vec(batch_var, n) = keep * ConstVec(variance.data<float>(), n) +
                          (exponential_avg_factor_ * bessel) * m.variance;
    }
    return absl::OkStatus();
  }

 private:
  const bool has_reserve_space_3_;
  float epsilon_ = 0;
  float exponential_avg_factor_ = 1;
  bool is_training_ = false;
  bool channels_last_ = true;
};

TENSORD_REGISTER_KERNEL(
    KernelDef("FusedBatchNorm").Device(DeviceType::kCpu).TypeConstraint("T", DT_FLOAT),
    FusedBatchNormOp);
TENSORD_REGISTER_KERNEL(KernelDef("FusedBatchNormV2")
                            .Device(DeviceType::kCpu)
                            .TypeConstraint("T", DT_FLOAT)
                            .TypeConstraint("U", DT_FLOAT),
                        FusedBatchNormOp);
TENSORD_REGISTER_KERNEL(KernelDef("FusedBatchNormV3")
                            .Device(DeviceType::kCpu)
                            .TypeConstraint("T", DT_FLOAT)
                            .TypeConstraint("U", DT_FLOAT),
                        FusedBatchNormOp);

}  // namespace
}  // namespace tensord
