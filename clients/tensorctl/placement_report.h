// `tensorctl inspect --placement`: where a loaded model's nodes run, as text or JSON.
//
// Text: a summary line, then one row per node (function bodies' nodes marked "in function"):
//   placement: /device:CPU:0=12; 0 copies; 1 soft-placed
//   NODE  OP  REQUESTED  ASSIGNED
//   dense/MatMul  _FusedMatMul  /device:GPU:0  /device:CPU:0 (soft)
// JSON: {"devices": {"/device:CPU:0": 12}, "copies": 0, "soft_placed": 1,
//        "nodes": [{"node", "op", "in_function", "requested", "assigned", "soft_placed"}, ...]}
#ifndef TENSORD_CLIENTS_TENSORCTL_PLACEMENT_REPORT_H_
#define TENSORD_CLIENTS_TENSORCTL_PLACEMENT_REPORT_H_

#include <string>

#include "runtime/exec/placement.h"
#include "runtime/util/json.h"

namespace tensord {
namespace tensorctl {

std::string PlacementText(const PlacementRecord& record);
json::Value PlacementJson(const PlacementRecord& record);

}  // namespace tensorctl
}  // namespace tensord

#endif  // TENSORD_CLIENTS_TENSORCTL_PLACEMENT_REPORT_H_
