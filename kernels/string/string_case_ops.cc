// StringLower / StringUpper. With encoding "" only ASCII letters change; with "utf-8" the text is
// case-mapped as Unicode by ICU, like TensorFlow (full mappings such as "ß" -> "SS"; invalid
// UTF-8 becomes U+FFFD). The root locale is used, so results do not depend on the host's locale.
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "kernels/string/string_util.h"
#include "runtime/framework/kernel_registry.h"
#include "unicode/locid.h"
#include "unicode/unistr.h"

namespace tensord {
namespace string_ops {
namespace {

enum class Case { kLower, kUpper };

template <Case kCase>
class StringCaseOp : public OpKernel {
 public:
  explicit StringCaseOp(OpKernelConstruction* c) : OpKernel(c) {
    std::string encoding;
    if (!c->GetAttr("encoding", &encoding)) return;
    if (!encoding.empty() && encoding != "utf-8") {
      SetAttrError(
          c, absl::StrCat("only utf-8 or '' (no encoding) is supported, received ", encoding));
    }
    utf8_ = encoding == "utf-8";
  }

  absl::Status Compute(OpKernelContext* c) const override {
    return MapStrings<std::string>(c, 0, [this](const std::string& in, std::string* out) {
      if (!utf8_) {
        *out = kCase == Case::kLower ? absl::AsciiStrToLower(in) : absl::AsciiStrToUpper(in);
        return absl::OkStatus();
      }
      icu::UnicodeString text = icu::UnicodeString::fromUTF8(in);
      if (kCase == Case::kLower) {
        text.toLower(icu::Locale::getRoot());
      } else {
        text.toUpper(icu::Locale::getRoot());
      }
      out->clear();
      text.toUTF8String(*out);
      return absl::OkStatus();
    });
  }

 private:
  bool utf8_ = false;
};

TENSORD_REGISTER_KERNEL(KernelDef("StringLower").Device(DeviceType::kCpu),
                        StringCaseOp<Case::kLower>);
TENSORD_REGISTER_KERNEL(KernelDef("StringUpper").Device(DeviceType::kCpu),
                        StringCaseOp<Case::kUpper>);

}  // namespace
}  // namespace string_ops
}  // namespace tensord
