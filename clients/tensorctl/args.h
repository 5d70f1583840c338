// Command-line parsing for tensorctl. Flags take "--name value" or "--name=value".
#ifndef TENSORD_CLIENTS_TENSORCTL_ARGS_H_
#define TENSORD_CLIENTS_TENSORCTL_ARGS_H_

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/exec/device_policy.h"
#include "runtime/exec/precision.h"

namespace tensord {
namespace tensorctl {

struct InputSpec {
  std::string alias;
  std::string value;  // JSON text, or "@path" of an .npy file
};

struct Args {
  enum class Command { kHelp, kInspect, kRun };
  Command command = Command::kHelp;
  std::string dir;
  // Unset: inspect shows every meta graph; run uses {"serve"}.
  std::optional<std::set<std::string>> tag_set;
  bool json = false;                            // inspect
  bool placement = false;                       // inspect: load DIR, print where nodes run
  // inspect --placement, run: the device policy placement follows (--device).
  std::optional<DevicePolicy> device;
  // run: the precision of the CPU's matrix products and convolutions (--precision).
  ComputePrecision precision = ComputePrecision::kFloat32;
  std::string signature_def = "serving_default";  // run
  std::vector<InputSpec> inputs;                // run
  std::string output_dir;                       // run
  // run: after the run that prints the outputs, this many more runs timed per kernel; 0 = none.
  int profile_runs = 0;
};

// Parses argv[1:]. Errors are usage errors (the caller exits with status 2).
absl::StatusOr<Args> ParseArgs(const std::vector<std::string>& args);

// "serve,gpu" -> {"serve", "gpu"}; "" -> {} (a meta graph without tags).
std::set<std::string> ParseTagSet(const std::string& text);

extern const char kUsage[];

}  // namespace tensorctl
}  // namespace tensord

#endif  // TENSORD_CLIENTS_TENSORCTL_ARGS_H_
