#include "gtest/gtest.h"
#include "kernels/control_flow/control_flow_test_util.h"
#include "kernels/testing/kernel_test_util.h"

namespace tensord {
namespace {

using testing::AsTensor;
using testing::RunGraphText;

// if p: x + x, else: reshape(x, [7]) (which fails for a 2-element x, so a run of the else
// branch shows in the result).
std::string IfGraph(const std::string& op) {
  return R"pb(
    node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "if" op: ")pb" + op + R"pb(" input: "p" input: "x"
           attr { key: "Tcond" value { type: DT_FLOAT } }
           attr { key: "Tin" value { list { type: DT_FLOAT } } }
           attr { key: "Tout" value { list { type: DT_FLOAT } } }
           attr { key: "then_branch" value { func { name: "twice" } } }
           attr { key: "else_branch" value { func { name: "bad_reshape" } } } }
    library {
      function {
        signature { name: "twice" input_arg { name: "v" type: DT_FLOAT }
                    output_arg { name: "y" type: DT_FLOAT } }
        node_def { name: "add" op: "AddV2" input: "v" input: "v"
                   attr { key: "T" value { type: DT_FLOAT } } }
        ret { key: "y" value: "add:z:0" }
      }
      function {
        signature { name: "bad_reshape" input_arg { name: "v" type: DT_FLOAT }
                    output_arg { name: "y" type: DT_FLOAT } }
        node_def { name: "shape" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
                   attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } }
                                                        int_val: 7 } } } }
        node_def { name: "reshape" op: "Reshape" input: "v" input: "shape:output:0"
                   attr { key: "T" value { type: DT_FLOAT } } }
        ret { key: "y" value: "reshape:output:0" }
      }
    })pb";
}

TEST(IfOpTest, RunsOnlyTheChosenBranch) {
  const Tensor x = AsTensor<float>({1.0f, -3.0f}, {2});
  for (const std::string op : {"If", "StatelessIf"}) {
    // Non-zero scalars and non-empty tensors are true.
    for (const Tensor& p : {Tensor::Scalar<float>(2.5f), AsTensor<float>({0.0f, 0.0f}, {2})}) {
      auto out = RunGraphText(IfGraph(op), {{"p", p}, {"x", x}}, {"if:0"});
      ASSERT_TRUE(out.ok()) << op << " p=" << p.DebugString() << ": " << out.status();
      testing::ExpectTensorNear((*out)[0], AsTensor<float>({2.0f, -6.0f}, {2}));
    }
    // Zero and empty tensors are false: the else branch runs and its reshape fails.
    for (const Tensor& p : {Tensor::Scalar<float>(0.0f), AsTensor<float>({}, {0})}) {
      auto out = RunGraphText(IfGraph(op), {{"p", p}, {"x", x}}, {"if:0"});
      EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << out.status();
      EXPECT_NE(out.status().message().find("reshape"), std::string::npos) << out.status();
    }
  }
}

}  // namespace
}  // namespace tensord
