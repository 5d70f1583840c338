#include "clients/tensorctl/placement_report.h"

#include "gtest/gtest.h"

namespace tensord {
namespace tensorctl {
namespace {

PlacementRecord Record() {
  PlacementRecord record;
  record.nodes.push_back({"loop/step", "AddV2", true, "", "/device:CPU:0", false});
  record.nodes.push_back({"dense", "_FusedMatMul", false, "/device:GPU:0", "/device:CPU:0", true});
  record.nodes.push_back({"odd", "Unknown", false, "", "/device:CPU:0", false});
  return record;
}

TEST(PlacementReportTest, Text) {
  EXPECT_EQ(PlacementText(Record()),
            "placement: /device:CPU:0=3; 0 copies; 1 soft-placed\n"
            "NODE                     OP            REQUESTED      ASSIGNED\n"
            "loop/step (in function)  AddV2         -              /device:CPU:0\n"
            "dense                    _FusedMatMul  /device:GPU:0  /device:CPU:0 (soft)\n"
            "odd                      Unknown       -              /device:CPU:0\n");
}

TEST(PlacementReportTest, Json) {
  EXPECT_EQ(json::Write(PlacementJson(Record())),
            R"({"devices": {"/device:CPU:0": 3}, "copies": 0, "soft_placed": 1, "nodes": [)"
            R"({"node": "loop/step", "op": "AddV2", "in_function": true, "requested": "", )"
            R"("assigned": "/device:CPU:0", "soft_placed": false}, )"
            R"({"node": "dense", "op": "_FusedMatMul", "in_function": false, )"
            R"("requested": "/device:GPU:0", "assigned": "/device:CPU:0", "soft_placed": true}, )"
            R"({"node": "odd", "op": "Unknown", "in_function": false, "requested": "", )"
            R"("assigned": "/device:CPU:0", "soft_placed": false}]})");
}

}  // namespace
}  // namespace tensorctl
}  // namespace tensord
