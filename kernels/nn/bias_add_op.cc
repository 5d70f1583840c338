// BiasAdd and BiasAddV1 on CPU (float): adds a 1-D bias along the channel dimension, the last
// one for NHWC (and BiasAddV1) or dimension 1 for NCHW. Not a general broadcast: the bias length
// must equal that dimension.
#include "kernels/nn/bias_add_op.h"

#include "absl/strings/str_cat.h"
#include "kernels/nn/window_util.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/framework/parallel_for.h"
#include "runtime/framework/tensor_eigen.h"
#include "runtime/util/status_macros.h"

namespace tensord {

bool BiasAddChannelsFirst(OpKernelConstruction* c) {
  // BiasAddV1 has no data_format attr and is always channels-last.
  if (!c->HasAttr("data_format")) return false;
  std::string data_format;
  if (!c->GetAttr("data_format", &data_format)) return false;
  if (data_format != "NCHW" && data_format != "NHWC") {
    c->SetError(WithNodeName(c->name(), absl::InvalidArgumentError(absl::StrCat(
                                            "invalid data_format '", data_format, "'"))));
  }
  return data_format == "NCHW";
}

absl::StatusOr<TensorShape> BiasBroadcastShape(const OpKernelContext* c, bool channels_first) {
  const Tensor& x = c->input(0);
  const Tensor& bias = c->input(1);
  if (x.dims() < 2) {
    return c->InvalidArgument(absl::StrCat("input must be at least 2-dimensional, got shape ",
                                           x.shape().DebugString()));
  }
  if (bias.dims() != 1) {
    return c->InvalidArgument(
        absl::StrCat("bias must be 1-dimensional, got shape ", bias.shape().DebugString()));
  }
  const int channel_dim = channels_first ? 1 : x.dims() - 1;
  if (bias.dim_size(0) != x.dim_size(channel_dim)) {
    return c->InvalidArgument(
        absl::StrCat("must provide as many biases as the channel dimension of the input tensor: ",
                     bias.shape().DebugString(), " vs. ", x.shape().DebugString()));
  }
  TensorShape shape{bias.dim_size(0)};
  if (channels_first) {
    for (int d = 2; d < x.dims(); ++d) shape.AddDim(1);
  }
  return shape;
}

namespace {

using Index = Eigen::Index;
using Vec = Eigen::Map<Eigen::ArrayXf>;
using ConstVec = Eigen::Map<const Eigen::ArrayXf>;

class BiasAddOp : public OpKernel {
 public:
  explicit BiasAddOp(OpKernelConstruction* c)
      : OpKernel(c), channels_first_(BiasAddChannelsFirst(c)) {}

  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& x = c->input(0);
    const Tensor& bias = c->input(1);
    TENSORD_RETURN_IF_ERROR(BiasBroadcastShape(c, channels_first_).status());
    const int channel_dim = channels_first_ ? 1 : x.dims() - 1;
    const Index channels = x.dim_size(channel_dim);
    Tensor* y = c->forward_input_or_allocate_output({0}, 0, DT_FLOAT, x.shape());
    if (x.NumElements() == 0) return absl::OkStatus();
    const float* in = x.data<float>();
    float* out = y->data<float>();
    const ConstVec b(bias.data<float>(), channels);
    // Rows of `channels` values (channels last) or rows of one channel's `inner` values.
    const Index row_len = channels_first_ ? x.NumElements() / (x.dim_size(0) * channels) : channels;
    const Index rows = x.NumElements() / row_len;
    const Eigen::TensorOpCost cost(row_len * sizeof(float), row_len * sizeof(float), row_len);
    ParallelFor(c->eigen_cpu_device(), rows, cost, [&](Index begin, Index end) {
      for (Index r = begin; r < end; ++r) {
        Vec dst(out + r * row_len, row_len);
        const ConstVec src(in + r * row_len, row_len);
        if (channels_first_) {
          dst = src + b[r % channels];
        } else {
          dst = src + b;
        }
      }
    });
    return absl::OkStatus();
  }

 private:
  const bool channels_first_;
};

TENSORD_REGISTER_KERNEL(KernelDef("BiasAdd").Device(DeviceType::kCpu).TypeConstraint("T", DT_FLOAT),
                        BiasAddOp);
TENSORD_REGISTER_KERNEL(
    KernelDef("BiasAddV1").Device(DeviceType::kCpu).TypeConstraint("T", DT_FLOAT), BiasAddOp);

}  // namespace
}  // namespace tensord
