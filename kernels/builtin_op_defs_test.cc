// Every op with a kernel has a built-in OpDef (runtime/graph/builtin_op_defs.h), so models
// whose op list leaves it out still get its default attrs. When this fails after adding a
// kernel: bazel build //kernels:list_kernels && python3 tests/models/gen_op_defs.py
#include <string>

#include "gtest/gtest.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/graph/builtin_op_defs.h"

namespace tensord {
namespace {

TEST(BuiltinOpDefsTest, CoverEveryKernel) {
  int checked = 0;
  for (const std::string& entry : KernelRegistry::Global().List()) {
    const std::string op = entry.substr(0, entry.find(' '));
    // Ops named "_..." are made by tensord's own graph passes, complete with their attrs.
    if (op[0] == '_') continue;
    EXPECT_NE(FindBuiltinOpDef(op), nullptr) << op << " has a kernel but no built-in OpDef";
    ++checked;
  }
  EXPECT_GT(checked, 200);
}

TEST(BuiltinOpDefsTest, CarryDefaultsAndOutputArguments) {
  const ::tensorflow::OpDef* matmul = FindBuiltinOpDef("MatMul");
  ASSERT_NE(matmul, nullptr);
  bool has_default = false;
  for (const auto& attr : matmul->attr()) {
    if (attr.name() == "transpose_a") has_default = attr.has_default_value() && !attr.default_value().b();
  }
  EXPECT_TRUE(has_default);
  const ::tensorflow::OpDef* topk = FindBuiltinOpDef("TopKV2");
  ASSERT_NE(topk, nullptr);
  ASSERT_EQ(topk->output_arg_size(), 2);
  EXPECT_EQ(topk->output_arg(1).name(), "indices");
  EXPECT_EQ(FindBuiltinOpDef("NoSuchOp"), nullptr);
}

}  // namespace
}  // namespace tensord
