// Print (TF1: forwards its input and logs `message` plus summaries of `data`) and PrintV2
// (tf.print: writes an already formatted string). Output goes to stderr, or stdout for
// PrintV2's output_stream "stdout"; writing to files (output_stream "file://...") is refused.
#include <atomic>
#include <cstdio>
#include <type_traits>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "kernels/array/array_util.h"
#include "runtime/framework/dispatch_numeric.h"

namespace tensord {
namespace {

std::string ElementString(const Tensor& t, int64_t i) {
  if (t.dtype() == DT_STRING) return t.data<std::string>()[i];
  std::string s;
  DispatchNumeric(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T v = t.data<T>()[i];
    if constexpr (std::is_same_v<T, std::complex<float>> ||
                  std::is_same_v<T, std::complex<double>>) {
      s = absl::StrCat("(", v.real(), ",", v.imag(), ")");
    } else if constexpr (std::is_same_v<T, Eigen::half> || std::is_same_v<T, Eigen::bfloat16>) {
      s = absl::StrCat(static_cast<float>(v));
    } else {
      s = absl::StrCat(v);
    }
  });
  return s;
}

// TensorFlow's Tensor::SummarizeValue layout: nested brackets per dim, the first `limit`
// elements, "..." where elements were left out.
void SummarizeDim(const Tensor& t, int dim, int64_t limit, int64_t* next, std::string* out) {
  if (*next >= limit) return;
  const int64_t count = t.dim_size(dim);
  if (dim == t.dims() - 1) {
    for (int64_t i = 0; i < count; ++i) {
      if (*next >= limit) {
        if (dim != 0) out->append("...");
        return;
      }
      if (i > 0) out->append(" ");
      out->append(ElementString(t, (*next)++));
    }
    return;
  }
  for (int64_t i = 0; i < count; ++i) {
    const bool opened = *next < limit;
    if (opened) out->append("[");
    SummarizeDim(t, dim + 1, limit, next, out);
    if (*next < limit || opened) out->append("]");
  }
}

std::string Summarize(const Tensor& t, int64_t max_entries) {
  const int64_t n = t.NumElements();
  const int64_t limit = max_entries < 0 ? n : std::min(max_entries, n);
  std::string out;
  if (t.dims() == 0) {
    if (limit > 0) out = ElementString(t, 0);
  } else {
    int64_t next = 0;
    SummarizeDim(t, 0, limit, &next, &out);
  }
  if (n > limit) out.append("...");
  return out;
}

class PrintOp : public OpKernel {
 public:
  explicit PrintOp(OpKernelConstruction* c) : OpKernel(c) {
    c->GetAttr("message", &message_);
    c->GetAttr("first_n", &first_n_);
    c->GetAttr("summarize", &summarize_);
  }
  absl::Status Compute(OpKernelContext* c) const override {
    c->set_output(0, c->input(0));
    // first_n counts across runs, as in TensorFlow.
    if (first_n_ >= 0 && printed_.fetch_add(1) >= first_n_) return absl::OkStatus();
    std::string line = message_;
    for (int i = 1; i < c->num_inputs(); ++i) {
      absl::StrAppend(&line, "[", Summarize(c->input(i), summarize_), "]");
    }
    std::fprintf(stderr, "%s\n", line.c_str());
    return absl::OkStatus();
  }

 private:
  std::string message_;
  int64_t first_n_ = -1;
  int64_t summarize_ = 3;
  mutable std::atomic<int64_t> printed_{0};
};

class PrintV2Op : public OpKernel {
 public:
  explicit PrintV2Op(OpKernelConstruction* c) : OpKernel(c) {
    std::string stream;
    if (!c->GetAttr("output_stream", &stream) || !c->GetAttr("end", &end_)) return;
    if (stream == "stdout") {
      stdout_ = true;
    } else if (stream != "stderr" && !absl::StartsWith(stream, "log(")) {
      c->SetError(absl::UnimplementedError(
          absl::StrCat("PrintV2 node '", c->name(), "': output_stream '", stream,
                       "' is not supported (use stderr, stdout or log(...))")));
    }
  }
  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& input = c->input(0);
    if (input.dtype() != DT_STRING || input.dims() != 0) {
      return c->InvalidArgument(
          absl::StrCat("Input is expected to be scalar, but got ", input.shape().DebugString()));
    }
    const std::string text = input.scalar<std::string>() + end_;
    std::fwrite(text.data(), 1, text.size(), stdout_ ? stdout : stderr);
    std::fflush(stdout_ ? stdout : stderr);
    return absl::OkStatus();
  }

 private:
  std::string end_;
  bool stdout_ = false;
};

TENSORD_REGISTER_KERNEL_FOR_TYPES(array::CpuDef("Print"), "T", array::kAllValueTypes, PrintOp);
TENSORD_REGISTER_KERNEL(array::CpuDef("PrintV2"), PrintV2Op);

}  // namespace
}  // namespace tensord
