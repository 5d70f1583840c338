// StringNGrams(data, data_splits) -> (ngrams, ngrams_splits): the n-grams of each ragged row
// data[data_splits[i]:data_splits[i+1]] for every width in ngram_widths, in width order, the
// tokens joined by `separator` (tf.strings.ngrams; Keras' TextVectorization with ngrams).
//
// Each row is padded with pad_width copies of left_pad before and right_pad after (pad_width -1:
// width - 1; never more than width - 1), so a row of n tokens has max(0, n + 2 * pad - width + 1)
// n-grams of a width. With preserve_short_sequences, a non-empty row that yields no n-gram at
// all gets one: the whole row with pad_width pads on each side.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/string/string_util.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace string_ops {
namespace {

template <typename Split>
class StringNGramsOp : public OpKernel {
 public:
  explicit StringNGramsOp(OpKernelConstruction* c) : OpKernel(c) {
    c->GetAttr("separator", &separator_);
    c->GetAttr("left_pad", &left_pad_);
    c->GetAttr("right_pad", &right_pad_);
    c->GetAttr("pad_width", &pad_width_);
    c->GetAttr("preserve_short_sequences", &preserve_short_);
    c->GetAttr("ngram_widths", &widths_);
    for (int64_t width : widths_) {
      if (width <= 0) SetAttrError(c, "ngram_widths must contain positive values");
    }
  }

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_RETURN_IF_ERROR(CheckInputType(*c, 0, DT_STRING));
    const Tensor& data = c->input(0);
    const Tensor& splits = c->input(1);
    if (splits.dims() != 1 || splits.NumElements() < 1) {
      return c->InvalidArgument(absl::StrCat("data_splits must be a non-empty vector, got shape ",
                                             splits.shape().DebugString()));
    }
    const Split* bounds = splits.data<Split>();
    const int64_t rows = splits.NumElements() - 1;
    const int64_t size = data.NumElements();
    if (bounds[0] != 0) {
      return c->InvalidArgument(absl::StrCat("First split value must be 0, got ", bounds[0]));
    }
    for (int64_t r = 1; r <= rows; ++r) {
      if (bounds[r] < bounds[r - 1] || bounds[r] > size) {
        return c->InvalidArgument(absl::StrCat("Invalid split value ", bounds[r], ", must be in [",
                                               bounds[r - 1], ", ", size, "]"));
      }
    }
    if (bounds[rows] != size) {
      return c->InvalidArgument(absl::StrCat("Last split value must be data size. Expected ", size,
                                             ", got ", bounds[rows]));
    }

    Tensor* out_splits = c->allocate_output(1, splits.dtype(), splits.shape());
    Split* out_bounds = out_splits->data<Split>();
    out_bounds[0] = 0;
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t length = bounds[r + 1] - bounds[r];
      int64_t count = 0;
      for (int64_t width : widths_) count += NumNGrams(length, width);
      if (preserve_short_ && length > 0 && count == 0) count = 1;
      out_bounds[r + 1] = static_cast<Split>(out_bounds[r] + count);
    }

    std::string* out = c->allocate_output(0, DT_STRING, {static_cast<int64_t>(out_bounds[rows])})
                           ->data<std::string>();
    const std::string* tokens = data.data<std::string>();
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t length = bounds[r + 1] - bounds[r];
      std::string* row_out = out + out_bounds[r];
      for (int64_t width : widths_) {
        const int64_t count = NumNGrams(length, width);
        WriteNGrams(tokens + bounds[r], width, PadWidth(width), count, row_out);
        row_out += count;
      }
      if (row_out == out + out_bounds[r] && out_bounds[r + 1] > out_bounds[r]) {
        // preserve_short_sequences: the whole row, padded.
        const int64_t pad = std::max<int64_t>(pad_width_, 0);
        WriteNGrams(tokens + bounds[r], length + 2 * pad, pad, 1, row_out);
      }
    }
    return absl::OkStatus();
  }

 private:
  int64_t PadWidth(int64_t width) const {
    return pad_width_ < 0 ? width - 1 : std::min(pad_width_, width - 1);
  }

  int64_t NumNGrams(int64_t length, int64_t width) const {
    return std::max<int64_t>(0, length + 2 * PadWidth(width) - width + 1);
  }

  // Writes `count` n-grams of `width` over tokens padded with `pad` pads on each side; n-gram k
  // starts at padded position k.
  void WriteNGrams(const std::string* tokens, int64_t width, int64_t pad, int64_t count,
                   std::string* out) const {
    for (int64_t k = 0; k < count; ++k) {
      const int64_t left = std::max<int64_t>(0, pad - k);
      const int64_t right = std::max<int64_t>(0, pad - (count - 1 - k));
      const int64_t first = std::max<int64_t>(0, k - pad);
      std::string& ngram = out[k];
      ngram.clear();
      for (int64_t i = 0; i < width; ++i) {
        if (i > 0) ngram += separator_;
        if (i < left) {
          ngram += left_pad_;
        } else if (i >= width - right) {
          ngram += right_pad_;
        } else {
          ngram += tokens[first + i - left];
        }
      }
    }
  }

  std::string separator_;
  std::string left_pad_;
  std::string right_pad_;
  int64_t pad_width_ = -1;
  bool preserve_short_ = false;
  std::vector<int64_t> widths_;
};

TENSORD_REGISTER_KERNEL(
    KernelDef("StringNGrams").Device(DeviceType::kCpu).TypeConstraint("Tsplits", DT_INT32),
    StringNGramsOp<int32_t>);
TENSORD_REGISTER_KERNEL(
    KernelDef("StringNGrams").Device(DeviceType::kCpu).TypeConstraint("Tsplits", DT_INT64),
    StringNGramsOp<int64_t>);

}  // namespace
}  // namespace string_ops
}  // namespace tensord
