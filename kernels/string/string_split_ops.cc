// String splitting into a SparseTensor (indices [n, 2], values [n], shape [2] = [batch, max
// tokens]) of a vector of strings:
//   StringSplit(input, delimiter) [skip_empty]: splits at any of the delimiter's bytes (every
//     byte when the delimiter is empty); an empty input string gives no tokens.
//   StringSplitV2(input, sep) [maxsplit]: Python's str.split: with a separator, consecutive
//     separators delimit empty tokens; with an empty one, whitespace runs separate and leading or
//     trailing whitespace gives no tokens. After maxsplit splits (if >= 0) the rest is one token.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "kernels/string/string_util.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace string_ops {
namespace {

std::vector<absl::string_view> SplitV1(absl::string_view s, absl::string_view delimiter,
                                       bool skip_empty) {
  std::vector<absl::string_view> tokens;
  if (delimiter.empty()) {
    for (size_t i = 0; i < s.size(); ++i) tokens.push_back(s.substr(i, 1));
    return tokens;
  }
  if (s.empty()) return tokens;
  if (skip_empty) return absl::StrSplit(s, absl::ByAnyChar(delimiter), absl::SkipEmpty());
  return absl::StrSplit(s, absl::ByAnyChar(delimiter));
}

void SkipWhitespace(absl::string_view* s) {
  while (!s->empty() && absl::ascii_isspace(static_cast<unsigned char>(s->front()))) {
    s->remove_prefix(1);
  }
}

std::vector<absl::string_view> SplitV2(absl::string_view s, absl::string_view sep,
                                       int64_t maxsplit) {
  std::vector<absl::string_view> tokens;
  if (maxsplit == 0) return {s};
  int64_t splits = 0;
  if (sep.empty()) {
    SkipWhitespace(&s);
    while (!s.empty()) {
      size_t n = 0;
      while (n < s.size() && !absl::ascii_isspace(static_cast<unsigned char>(s[n]))) ++n;
      tokens.push_back(s.substr(0, n));
      s.remove_prefix(n);
      SkipWhitespace(&s);
      if (++splits == maxsplit) {
        tokens.push_back(s);
        break;
      }
    }
    return tokens;
  }
  for (size_t at = s.find(sep); at != absl::string_view::npos; at = s.find(sep)) {
    tokens.push_back(s.substr(0, at));
    s.remove_prefix(at + sep.size());
    if (++splits == maxsplit) break;
  }
  tokens.push_back(s);
  return tokens;
}

// Validates the vector input and scalar separator, splits each string with split(s, sep) and
// writes the sparse outputs.
template <typename SplitFn>
absl::Status SplitToSparse(OpKernelContext* c, absl::string_view sep_name, SplitFn split) {
  TENSORD_RETURN_IF_ERROR(CheckInputType(*c, 0, DT_STRING));
  TENSORD_RETURN_IF_ERROR(CheckInputType(*c, 1, DT_STRING));
  const Tensor& input = c->input(0);
  const Tensor& sep = c->input(1);
  if (input.dims() != 1) {
    return c->InvalidArgument(
        absl::StrCat("input must be a vector, got shape: ", input.shape().DebugString()));
  }
  if (sep.dims() != 0) {
    return c->InvalidArgument(
        absl::StrCat(sep_name, " must be a scalar, got shape: ", sep.shape().DebugString()));
  }
  const int64_t batch = input.dim_size(0);
  std::vector<std::vector<absl::string_view>> tokens(batch);
  int64_t total = 0;
  int64_t max_tokens = 0;
  for (int64_t i = 0; i < batch; ++i) {
    tokens[i] = split(input.data<std::string>()[i], sep.scalar<std::string>());
    total += static_cast<int64_t>(tokens[i].size());
    max_tokens = std::max<int64_t>(max_tokens, tokens[i].size());
  }
  int64_t* indices = c->allocate_output(0, DT_INT64, {total, 2})->data<int64_t>();
  std::string* values = c->allocate_output(1, DT_STRING, {total})->data<std::string>();
  int64_t* shape = c->allocate_output(2, DT_INT64, {2})->data<int64_t>();
  shape[0] = batch;
  shape[1] = max_tokens;
  int64_t n = 0;
  for (int64_t i = 0; i < batch; ++i) {
    for (size_t j = 0; j < tokens[i].size(); ++j, ++n) {
      indices[2 * n] = i;
      indices[2 * n + 1] = static_cast<int64_t>(j);
      values[n] = std::string(tokens[i][j]);
    }
  }
  return absl::OkStatus();
}

class StringSplitOp : public OpKernel {
 public:
  explicit StringSplitOp(OpKernelConstruction* c) : OpKernel(c) {
    c->GetAttr("skip_empty", &skip_empty_);
  }

  absl::Status Compute(OpKernelContext* c) const override {
    return SplitToSparse(c, "delimiter", [this](absl::string_view s, absl::string_view d) {
      return SplitV1(s, d, skip_empty_);
    });
  }

 private:
  bool skip_empty_ = true;
};

class StringSplitV2Op : public OpKernel {
 public:
  explicit StringSplitV2Op(OpKernelConstruction* c) : OpKernel(c) {
    c->GetAttr("maxsplit", &maxsplit_);
  }

  absl::Status Compute(OpKernelContext* c) const override {
    return SplitToSparse(c, "sep", [this](absl::string_view s, absl::string_view sep) {
      return SplitV2(s, sep, maxsplit_);
    });
  }

 private:
  int64_t maxsplit_ = -1;
};

TENSORD_REGISTER_KERNEL(KernelDef("StringSplit").Device(DeviceType::kCpu).HostMemoryInput(1),
                        StringSplitOp);
TENSORD_REGISTER_KERNEL(KernelDef("StringSplitV2").Device(DeviceType::kCpu).HostMemoryInput(1),
                        StringSplitV2Op);

}  // namespace
}  // namespace string_ops
}  // namespace tensord
