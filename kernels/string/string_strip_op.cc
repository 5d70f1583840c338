// StringStrip: removes leading and trailing ASCII whitespace (" \t\n\v\f\r").
#include <string>

#include "absl/strings/ascii.h"
#include "kernels/string/string_util.h"
#include "runtime/framework/kernel_registry.h"

namespace tensord {
namespace string_ops {
namespace {

class StringStripOp : public OpKernel {
 public:
  explicit StringStripOp(OpKernelConstruction* c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext* c) const override {
    return MapStrings<std::string>(c, 0, [](const std::string& in, std::string* out) {
      *out = std::string(absl::StripAsciiWhitespace(in));
      return absl::OkStatus();
    });
  }
};

TENSORD_REGISTER_KERNEL(KernelDef("StringStrip").Device(DeviceType::kCpu), StringStripOp);

}  // namespace
}  // namespace string_ops
}  // namespace tensord
