// StringLength: the length of every string in bytes or, with unit "UTF8_CHAR", in UTF-8
// characters (int32).
#include <algorithm>
#include <string>

#include "kernels/string/string_util.h"
#include "runtime/framework/kernel_registry.h"

namespace tensord {
namespace string_ops {
namespace {

class StringLengthOp : public OpKernel {
 public:
  explicit StringLengthOp(OpKernelConstruction* c) : OpKernel(c), unit_(GetUnitAttr(c)) {}

  absl::Status Compute(OpKernelContext* c) const override {
    return MapStrings<int32_t>(c, 0, [this](const std::string& in, int32_t* out) {
      *out = static_cast<int32_t>(unit_ == CharUnit::kByte
                                      ? in.size()
                                      : std::count_if(in.begin(), in.end(), IsUtf8CharStart));
      return absl::OkStatus();
    });
  }

 private:
  const CharUnit unit_;
};

TENSORD_REGISTER_KERNEL(KernelDef("StringLength").Device(DeviceType::kCpu), StringLengthOp);

}  // namespace
}  // namespace string_ops
}  // namespace tensord
