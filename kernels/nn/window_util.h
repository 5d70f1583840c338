// Window geometry shared by the 2-D NHWC windowed kernels (Conv2D, DepthwiseConv2dNative,
// MaxPool, AvgPool): parsing of strides/dilations/padding attrs and TensorFlow's output-size and
// padding rules (GetWindowedOutputSizeVerbose). SAME padding puts the odd extra pixel after the
// data (bottom/right), so pad_before = floor(pad_total / 2).
#ifndef TENSORD_KERNELS_NN_WINDOW_UTIL_H_
#define TENSORD_KERNELS_NN_WINDOW_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/tensor_shape.h"

namespace tensord {

// `status` with the same code and its message prefixed by "<node>: ", so errors recorded while a
// kernel is constructed (or returned with codes other than InvalidArgument) name the node.
absl::Status WithNodeName(absl::string_view node_name, const absl::Status& status);

enum class Padding { kValid, kSame, kExplicit };

struct WindowDim {
  int64_t out_size;
  int64_t pad_before;
};

// One spatial dimension: input size `in`, window `k`, `stride`, `dilation`. The explicit pads
// are used only for Padding::kExplicit.
absl::StatusOr<WindowDim> ComputeWindowDim(int64_t in, int64_t k, int64_t stride, int64_t dilation,
                                           Padding padding, int64_t explicit_before,
                                           int64_t explicit_after);

// Everything a kernel needs to walk the windows of one NHWC input.
struct Window2DGeometry {
  int64_t batch, in_rows, in_cols, depth;
  int64_t k_rows, k_cols;
  int64_t stride_rows, stride_cols;
  int64_t dil_rows, dil_cols;
  int64_t out_rows, out_cols;
  int64_t pad_top, pad_left;  // may exceed the input for large explicit pads
};

// Validated strides, dilations and padding of a 2-D NHWC window op.
class Window2D {
 public:
  Window2D() = default;

  // `strides`, `dilations` and `explicit_paddings` are in NHWC order; dilations may be empty
  // (pooling). NCHW is Unimplemented, like TensorFlow's own CPU kernels.
  static absl::StatusOr<Window2D> Create(const std::vector<int64_t>& strides,
                                         const std::vector<int64_t>& dilations,
                                         const std::string& padding,
                                         const std::vector<int64_t>& explicit_paddings,
                                         const std::string& data_format);

  // Reads strides, padding, data_format and, where the op has them, dilations and
  // explicit_paddings. Errors are recorded on `c`.
  static Window2D FromAttrs(OpKernelConstruction* c);

  // Geometry for a rank-4 `input` and a k_rows x k_cols window; InvalidArgument (naming the
  // node) on a bad rank or an empty/negative output size.
  absl::StatusOr<Window2DGeometry> Geometry(const OpKernelContext& c, const TensorShape& input,
                                            int64_t k_rows, int64_t k_cols) const;

 private:
  int64_t stride_rows_ = 1, stride_cols_ = 1;
  int64_t dil_rows_ = 1, dil_cols_ = 1;
  Padding padding_ = Padding::kValid;
  int64_t pad_top_ = 0, pad_bottom_ = 0, pad_left_ = 0, pad_right_ = 0;
};

}  // namespace tensord

#endif  // TENSORD_KERNELS_NN_WINDOW_UTIL_H_
