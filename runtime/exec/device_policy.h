// DevicePolicy: which device a model's nodes ask for, as the placement pass reads it
// (runtime/exec/placement.h). Apart from placement, so that flag and config parsing (tensord,
// tensorctl) need nothing else of the runtime.
#ifndef TENSORD_RUNTIME_EXEC_DEVICE_POLICY_H_
#define TENSORD_RUNTIME_EXEC_DEVICE_POLICY_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tensord {

// Which device a model's nodes ask for: tensord's --device_policy flag, and per model the
// `device_policy` field of its ModelConfig (protos/serving/model_server_config.proto).
//   auto   nodes the graph pins keep their request; the others ask for GPU 0 when the set has
//          a GPU, else for nothing (the CPU). The default.
//   cpu    every node asks for the CPU, pinned ones too: keeps a model off the GPUs.
//   gpu:N  nodes the graph does not pin ask for GPU N ("gpu" is gpu:0).
// A request is never a failure: a node whose requested device is missing or has no kernel for
// it runs on the first device that has one (soft placement), and the record says so.
struct DevicePolicy {
  enum class Kind { kAuto, kCpu, kGpu };
  Kind kind = Kind::kAuto;
  int gpu = 0;  // for kGpu

  std::string ToString() const;  // "auto", "cpu", "gpu:1"
  bool operator==(const DevicePolicy& other) const {
    return kind == other.kind && (kind != Kind::kGpu || gpu == other.gpu);
  }
};

// "auto", "cpu", "gpu", "gpu:N" (N a GPU number below 1024); INVALID_ARGUMENT naming the text
// and the accepted forms otherwise.
absl::StatusOr<DevicePolicy> ParseDevicePolicy(absl::string_view text);

}  // namespace tensord

#endif  // TENSORD_RUNTIME_EXEC_DEVICE_POLICY_H_
