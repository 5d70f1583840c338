// ResizeBilinear (output float) and ResizeNearestNeighbor (output T) on NHWC images, with
// TensorFlow's CPU sampling rules:
//  * scale = (align_corners && out > 1) ? (in - 1) / (out - 1) : in / out, in float;
//  * bilinear source coordinate: half_pixel_centers ? (x + 0.5) * scale - 0.5 : x * scale;
//    neighbours floor / ceil clamped to [0, in - 1], weight = coordinate - floor(coordinate);
//  * nearest: half_pixel_centers ? floor((x + 0.5) * scale) (note: no -0.5) :
//    align_corners ? round(x * scale) : floor(x * scale), clamped to [0, in - 1].
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/parallel_for.h"
#include "runtime/framework/tensor_eigen.h"

namespace tensord {
namespace {

struct ResizeGeometry {
  int64_t batch, in_h, in_w, channels, out_h, out_w;
  float scale_h, scale_w;
};

float ResizeScale(int64_t in, int64_t out, bool align_corners) {
  return (align_corners && out > 1) ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
                                    : static_cast<float>(in) / static_cast<float>(out);
}

class ResizeOpBase : public OpKernel {
 public:
  explicit ResizeOpBase(OpKernelConstruction* c) : OpKernel(c) {
    c->GetAttr("align_corners", &align_corners_);
    c->GetAttr("half_pixel_centers", &half_pixel_centers_);
    if (align_corners_ && half_pixel_centers_) {
      c->SetError(absl::InvalidArgumentError(absl::StrCat(
          c->name(), ": If half_pixel_centers is True, align_corners must be False.")));
    }
  }

 protected:
  // Validates images and size like TensorFlow's ImageResizerState.
  absl::StatusOr<ResizeGeometry> Geometry(const OpKernelContext& c) const {
    const Tensor& images = c.input(0);
    const Tensor& size = c.input(1);
    if (images.dims() != 4) {
      return c.InvalidArgument(
          absl::StrCat("input must be 4-dimensional", images.shape().DebugString()));
    }
    if (size.dims() != 1) {
      return c.InvalidArgument(
          absl::StrCat("shape_t must be 1-dimensional", size.shape().DebugString()));
    }
    if (size.NumElements() != 2) {
      return c.InvalidArgument(
          absl::StrCat("shape_t must have two elements", size.shape().DebugString()));
    }
    if (size.dtype() != DT_INT32) {
      return c.InvalidArgument(
          absl::StrCat("size must be int32, got ", DataTypeString(size.dtype())));
    }
    ResizeGeometry g;
    g.batch = images.dim_size(0);
    g.in_h = images.dim_size(1);
    g.in_w = images.dim_size(2);
    g.channels = images.dim_size(3);
    g.out_h = size.data<int32_t>()[0];
    g.out_w = size.data<int32_t>()[1];
    if (g.out_h <= 0 || g.out_w <= 0) {
      return c.InvalidArgument("output dimensions must be positive");
    }
    if (g.channels <= 0) return c.InvalidArgument("image must have at least one channel");
    if (g.in_h <= 0 || g.in_w <= 0) {
      return c.InvalidArgument("input image must be of non-zero size");
    }
    g.scale_h = ResizeScale(g.in_h, g.out_h, align_corners_);
    g.scale_w = ResizeScale(g.in_w, g.out_w, align_corners_);
    return g;
  }

  // Runs fn(n, y) for every output row, in parallel.
  template <typename Fn>
  static void ForEachRow(const OpKernelContext& c, const ResizeGeometry& g, double row_cost,
                         Fn fn) {
    ParallelFor(c.eigen_cpu_device(), g.batch * g.out_h, Eigen::TensorOpCost(0, 0, row_cost),
                [&](Eigen::Index first, Eigen::Index last) {
                  for (Eigen::Index r = first; r < last; ++r) {
                    fn(r / g.out_h, r % g.out_h);
                  }
                });
  }

  bool align_corners_ = false;
  bool half_pixel_centers_ = false;
};

// The two source indices and the weight of the upper one for one output coordinate.
struct Interpolation {
  int64_t lower, upper;
  float lerp;
};

std::vector<Interpolation> BilinearWeights(int64_t out_size, int64_t in_size, float scale,
                                           bool half_pixel_centers) {
  std::vector<Interpolation> weights(out_size);
  for (int64_t i = 0; i < out_size; ++i) {
    const float in = half_pixel_centers ? (static_cast<float>(i) + 0.5f) * scale - 0.5f
                                        : static_cast<float>(i) * scale;
    const float in_floor = std::floor(in);
    weights[i].lower = std::max(static_cast<int64_t>(in_floor), int64_t{0});
    weights[i].upper = std::min(static_cast<int64_t>(std::ceil(in)), in_size - 1);
    weights[i].lerp = in - in_floor;
  }
  return weights;
}

template <typename T>
class ResizeBilinearOp : public ResizeOpBase {
 public:
  using ResizeOpBase::ResizeOpBase;

  absl::Status Compute(OpKernelContext* c) const override {
    auto geometry = Geometry(*c);
    if (!geometry.ok()) return geometry.status();
    const ResizeGeometry& g = *geometry;
    Tensor* output =
        c->allocate_output(0, DT_FLOAT, TensorShape{g.batch, g.out_h, g.out_w, g.channels});
    if (output->NumElements() == 0) return absl::OkStatus();
    const std::vector<Interpolation> ys =
        BilinearWeights(g.out_h, g.in_h, g.scale_h, half_pixel_centers_);
    const std::vector<Interpolation> xs =
        BilinearWeights(g.out_w, g.in_w, g.scale_w, half_pixel_centers_);
    const T* in = c->input(0).data<T>();
    float* out = output->data<float>();
    ForEachRow(*c, g, 8.0 * g.out_w * g.channels, [&](int64_t n, int64_t y) {
      const T* image = in + n * g.in_h * g.in_w * g.channels;
      const T* top = image + ys[y].lower * g.in_w * g.channels;
      const T* bottom = image + ys[y].upper * g.in_w * g.channels;
      const float y_lerp = ys[y].lerp;
      float* row = out + (n * g.out_h + y) * g.out_w * g.channels;
      for (int64_t x = 0; x < g.out_w; ++x) {
        const int64_t left = xs[x].lower * g.channels, right = xs[x].upper * g.channels;
        const float x_lerp = xs[x].lerp;
        for (int64_t ch = 0; ch < g.channels; ++ch) {
          const float top_left = static_cast<float>(top[left + ch]);
          const float top_right = static_cast<float>(top[right + ch]);
          const float bottom_left = static_cast<float>(bottom[left + ch]);
          const float bottom_right = static_cast<float>(bottom[right + ch]);
          // Same operation order as TensorFlow, so results agree to the last bit.
          const float top_value = top_left + (top_right - top_left) * x_lerp;
          const float bottom_value = bottom_left + (bottom_right - bottom_left) * x_lerp;
          row[x * g.channels + ch] = top_value + (bottom_value - top_value) * y_lerp;
        }
      }
    });
    return absl::OkStatus();
  }
};

std::vector<int64_t> NearestIndices(int64_t out_size, int64_t in_size, float scale,
                                    bool align_corners, bool half_pixel_centers) {
  std::vector<int64_t> indices(out_size);
  for (int64_t i = 0; i < out_size; ++i) {
    const float in =
        half_pixel_centers ? (static_cast<float>(i) + 0.5f) * scale : static_cast<float>(i) * scale;
    int64_t index = static_cast<int64_t>(align_corners ? std::round(in) : std::floor(in));
    index = std::min(index, in_size - 1);
    if (half_pixel_centers) index = std::max(index, int64_t{0});
    indices[i] = index;
  }
  return indices;
}

template <typename T>
class ResizeNearestNeighborOp : public ResizeOpBase {
 public:
  using ResizeOpBase::ResizeOpBase;

  absl::Status Compute(OpKernelContext* c) const override {
    auto geometry = Geometry(*c);
    if (!geometry.ok()) return geometry.status();
    const ResizeGeometry& g = *geometry;
    Tensor* output = c->allocate_output(0, c->input(0).dtype(),
                                        TensorShape{g.batch, g.out_h, g.out_w, g.channels});
    if (output->NumElements() == 0) return absl::OkStatus();
    const std::vector<int64_t> ys =
        NearestIndices(g.out_h, g.in_h, g.scale_h, align_corners_, half_pixel_centers_);
    const std::vector<int64_t> xs =
        NearestIndices(g.out_w, g.in_w, g.scale_w, align_corners_, half_pixel_centers_);
    const T* in = c->input(0).data<T>();
    T* out = output->data<T>();
    ForEachRow(*c, g, 2.0 * g.out_w * g.channels, [&](int64_t n, int64_t y) {
      const T* src_row = in + ((n * g.in_h) + ys[y]) * g.in_w * g.channels;
      T* row = out + (n * g.out_h + y) * g.out_w * g.channels;
      for (int64_t x = 0; x < g.out_w; ++x) {
        std::copy_n(src_row + xs[x] * g.channels, g.channels, row + x * g.channels);
      }
    });
    return absl::OkStatus();
  }
};

template <typename T>
void RegisterResize() {
  constexpr DataType dtype = DataTypeToEnum<T>::value;
  KernelRegistry::Global().Register(KernelDef("ResizeBilinear")
                                        .Device(DeviceType::kCpu)
                                        .TypeConstraint("T", dtype)
                                        .HostMemoryInput(1),
                                    [](OpKernelConstruction* c) -> std::unique_ptr<OpKernel> {
                                      return std::make_unique<ResizeBilinearOp<T>>(c);
                                    });
  KernelRegistry::Global().Register(KernelDef("ResizeNearestNeighbor")
                                        .Device(DeviceType::kCpu)
                                        .TypeConstraint("T", dtype)
                                        .HostMemoryInput(1),
                                    [](OpKernelConstruction* c) -> std::unique_ptr<OpKernel> {
                                      return std::make_unique<ResizeNearestNeighborOp<T>>(c);
                                    });
}

// float, plus uint8 for graphs that resize decoded images before casting them.
const bool kRegistered = [] {
  RegisterResize<float>();
  RegisterResize<uint8_t>();
  return true;
}();

}  // namespace
}  // namespace tensord
