// Regular-expression string ops, with RE2 (the engine and syntax TensorFlow uses):
//   StaticRegexFullMatch(input) [pattern]          RegexFullMatch(input, pattern)
//   StaticRegexReplace(input) [pattern, rewrite, replace_global]
//   RegexReplace(input, pattern, rewrite) [replace_global]
// The Static variants compile their pattern once at load; the others per call.
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "kernels/string/string_util.h"
#include "re2/re2.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace string_ops {
namespace {

absl::StatusOr<std::unique_ptr<const RE2>> Compile(const std::string& pattern) {
  RE2::Options options;
  options.set_log_errors(false);
  auto re = std::make_unique<const RE2>(pattern, options);
  if (!re->ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid pattern: ", pattern, ", error: ", re->error()));
  }
  return re;
}

// Reads the scalar string input `index` (RegexFullMatch's pattern, RegexReplace's rewrite).
absl::StatusOr<std::string> ScalarStringInput(const OpKernelContext& c, int index,
                                              absl::string_view what) {
  TENSORD_RETURN_IF_ERROR(CheckInputType(c, index, DT_STRING));
  const Tensor& t = c.input(index);
  if (t.dims() != 0) {
    return c.InvalidArgument(
        absl::StrCat(what, " must be scalar, but received ", t.shape().DebugString()));
  }
  return t.scalar<std::string>();
}

absl::Status FullMatch(OpKernelContext* c, const RE2& re) {
  return MapStrings<bool>(c, 0, [&re](const std::string& in, bool* out) {
    *out = RE2::FullMatch(in, re);
    return absl::OkStatus();
  });
}

absl::Status Replace(OpKernelContext* c, const RE2& re, const std::string& rewrite,
                     bool replace_global) {
  return MapStrings<std::string>(c, 0, [&](const std::string& in, std::string* out) {
    *out = in;
    if (replace_global) {
      RE2::GlobalReplace(out, re, rewrite);
    } else {
      RE2::Replace(out, re, rewrite);
    }
    return absl::OkStatus();
  });
}

// Compiles the `pattern` attr, recording an attr error when it is invalid.
std::unique_ptr<const RE2> CompileAttr(OpKernelConstruction* c) {
  std::string pattern;
  if (!c->GetAttr("pattern", &pattern)) return nullptr;
  auto re = Compile(pattern);
  if (!re.ok()) {
    SetAttrError(c, re.status().message());
    return nullptr;
  }
  return *std::move(re);
}

class StaticRegexFullMatchOp : public OpKernel {
 public:
  explicit StaticRegexFullMatchOp(OpKernelConstruction* c) : OpKernel(c), re_(CompileAttr(c)) {}

  absl::Status Compute(OpKernelContext* c) const override { return FullMatch(c, *re_); }

 private:
  const std::unique_ptr<const RE2> re_;
};

class RegexFullMatchOp : public OpKernel {
 public:
  explicit RegexFullMatchOp(OpKernelConstruction* c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_ASSIGN_OR_RETURN(std::string pattern, ScalarStringInput(*c, 1, "Pattern"));
    auto re = Compile(pattern);
    if (!re.ok()) return c->InvalidArgument(re.status().message());
    return FullMatch(c, **re);
  }
};

class StaticRegexReplaceOp : public OpKernel {
 public:
  explicit StaticRegexReplaceOp(OpKernelConstruction* c) : OpKernel(c), re_(CompileAttr(c)) {
    c->GetAttr("rewrite", &rewrite_);
    c->GetAttr("replace_global", &replace_global_);
  }

  absl::Status Compute(OpKernelContext* c) const override {
    return Replace(c, *re_, rewrite_, replace_global_);
  }

 private:
  const std::unique_ptr<const RE2> re_;
  std::string rewrite_;
  bool replace_global_ = true;
};

class RegexReplaceOp : public OpKernel {
 public:
  explicit RegexReplaceOp(OpKernelConstruction* c) : OpKernel(c) {
    c->GetAttr("replace_global", &replace_global_);
  }

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_ASSIGN_OR_RETURN(std::string pattern, ScalarStringInput(*c, 1, "Pattern"));
    TENSORD_ASSIGN_OR_RETURN(std::string rewrite, ScalarStringInput(*c, 2, "Rewrite"));
    auto re = Compile(pattern);
    if (!re.ok()) return c->InvalidArgument(re.status().message());
    return Replace(c, **re, rewrite, replace_global_);
  }

 private:
  bool replace_global_ = true;
};

TENSORD_REGISTER_KERNEL(KernelDef("StaticRegexFullMatch").Device(DeviceType::kCpu),
                        StaticRegexFullMatchOp);
TENSORD_REGISTER_KERNEL(KernelDef("RegexFullMatch").Device(DeviceType::kCpu).HostMemoryInput(1),
                        RegexFullMatchOp);
TENSORD_REGISTER_KERNEL(KernelDef("StaticRegexReplace").Device(DeviceType::kCpu),
                        StaticRegexReplaceOp);
TENSORD_REGISTER_KERNEL(
    KernelDef("RegexReplace").Device(DeviceType::kCpu).HostMemoryInput(1).HostMemoryInput(2),
    RegexReplaceOp);

}  // namespace
}  // namespace string_ops
}  // namespace tensord
