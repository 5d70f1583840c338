// Test helper for the control-flow kernels: runs a GraphDef written as text, with its
// function library, the way the loader does (functions inlined, then a session run).
#ifndef TENSORD_KERNELS_CONTROL_FLOW_CONTROL_FLOW_TEST_UTIL_H_
#define TENSORD_KERNELS_CONTROL_FLOW_CONTROL_FLOW_TEST_UTIL_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/exec/session.h"
#include "runtime/framework/tensor.h"

namespace tensord {
namespace testing {

// The OpDefs (as a stripped_op_list has them) of the ops the tests' functions use, so that
// "node:output_arg:index" references resolve.
extern const char kControlFlowTestOps[];

absl::StatusOr<std::vector<Tensor>> RunGraphText(
    const std::string& graph_text, const std::vector<std::pair<std::string, Tensor>>& feeds,
    const std::vector<std::string>& fetches, const RunOptions& options = RunOptions());

}  // namespace testing
}  // namespace tensord

#endif  // TENSORD_KERNELS_CONTROL_FLOW_CONTROL_FLOW_TEST_UTIL_H_
