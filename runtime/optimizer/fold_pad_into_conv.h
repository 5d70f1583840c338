// Load-time pass: a zero Pad of the rows and columns only, feeding a VALID or EXPLICIT
// Conv2D or DepthwiseConv2dNative, becomes the convolution's own explicit padding. Keras writes
// strided convolutions that way (ZeroPadding2D then a VALID convolution: ResNet's stem,
// MobileNet's downsampling depthwise layers); folded, the kernel reads the border as zeros
// instead of a padded copy of the input being made first.
//
// Pad, or PadV2 whose constant_values is a constant 0, with constant paddings; only when the
// convolution is the pad's sole consumer (through its data input, not the filter) and no
// signature reads the pad.
#ifndef TENSORD_RUNTIME_OPTIMIZER_FOLD_PAD_INTO_CONV_H_
#define TENSORD_RUNTIME_OPTIMIZER_FOLD_PAD_INTO_CONV_H_

#include "absl/status/statusor.h"
#include "runtime/optimizer/graph_view.h"

namespace tensord {

// Returns the number of pads folded.
absl::StatusOr<int> FoldPadIntoConv(const GraphPassContext& context);

}  // namespace tensord

#endif  // TENSORD_RUNTIME_OPTIMIZER_FOLD_PAD_INTO_CONV_H_
