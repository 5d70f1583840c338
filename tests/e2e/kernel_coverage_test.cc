// Every op that the committed test models need (tests/testdata/ops_all.txt, written by the
// model generator) has a registered CPU kernel, and so do the ops of TF Serving's test models.
// A kernel library dropped at link time fails here by name rather than at model load.
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "runtime/framework/kernel_registry.h"

namespace tensord {
namespace {

TEST(KernelCoverageTest, EveryServingOpOfTheTestModelsHasACpuKernel) {
  std::ifstream in("tests/testdata/ops_all.txt");
  ASSERT_TRUE(in) << "tests/testdata/ops_all.txt is missing";
  std::string line;
  int checked = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string op, scope;
    fields >> op >> scope;
    if (scope != "serve") continue;
    // Function calls are inlined at load; they never reach the kernel registry.
    if (op == "StatefulPartitionedCall" || op == "PartitionedCall") continue;
    EXPECT_TRUE(KernelRegistry::Global().HasOp(op)) << "no kernel for " << op << ": " << line;
    ++checked;
  }
  EXPECT_GT(checked, 80);
}

TEST(KernelCoverageTest, TfServingModelOps) {
  // The op sets listed in ../shared/testdata/tfserving/README.md §2 for the half_plus_two family.
  for (const char* op : {"Add", "Assign", "Const", "Identity", "Mul", "NoOp", "Pack",
                         "ParseExample", "ParseExampleV2", "Placeholder", "PlaceholderWithDefault",
                         "Reshape", "RestoreV2", "SaveV2", "MergeV2Checkpoints", "ShardedFilename",
                         "StringJoin", "VariableV2", "VarHandleOp", "ReadVariableOp",
                         "AssignVariableOp", "VarIsInitializedOp", "Conv2D", "BiasAdd",
                         "StridedSlice", "RandomUniform", "Select", "StaticRegexFullMatch",
                         "AssignAdd"}) {
    EXPECT_TRUE(KernelRegistry::Global().HasOp(op)) << "no kernel for " << op;
  }
}

}  // namespace
}  // namespace tensord
