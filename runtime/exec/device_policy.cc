#include "runtime/exec/device_policy.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace tensord {

std::string DevicePolicy::ToString() const {
  switch (kind) {
    case Kind::kAuto:
      return "auto";
    case Kind::kCpu:
      return "cpu";
    case Kind::kGpu:
      break;
  }
  return absl::StrCat("gpu:", gpu);
}

absl::StatusOr<DevicePolicy> ParseDevicePolicy(absl::string_view text) {
  DevicePolicy policy;
  int gpu = 0;
  absl::string_view number = text;
  if (text == "auto") return policy;
  if (text == "cpu") {
    policy.kind = DevicePolicy::Kind::kCpu;
    return policy;
  }
  if (text == "gpu" ||
      (absl::ConsumePrefix(&number, "gpu:") && !number.empty() && number.size() <= 4 &&
       std::all_of(number.begin(), number.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
       absl::SimpleAtoi(number, &gpu) && gpu < 1024)) {
    policy.kind = DevicePolicy::Kind::kGpu;
    policy.gpu = gpu;
    return policy;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "device policy '", text, "' is not one of auto, cpu, gpu, gpu:N"));
}

}  // namespace tensord
