#include "gtest/gtest.h"
#include "kernels/control_flow/control_flow_test_util.h"
#include "kernels/testing/kernel_test_util.h"

namespace tensord {
namespace {

using testing::AsTensor;
using testing::RunGraphText;

std::string CaseGraph(const std::string& op) {
  return R"pb(
    node { name: "b" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "case" op: ")pb" + op + R"pb(" input: "b" input: "x"
           attr { key: "Tin" value { list { type: DT_FLOAT } } }
           attr { key: "Tout" value { list { type: DT_FLOAT } } }
           attr { key: "branches" value { list { func { name: "twice" } func { name: "negate" }
                                                 func { name: "square" } } } } }
    library {
      function {
        signature { name: "twice" input_arg { name: "v" type: DT_FLOAT }
                    output_arg { name: "y" type: DT_FLOAT } }
        node_def { name: "add" op: "AddV2" input: "v" input: "v"
                   attr { key: "T" value { type: DT_FLOAT } } }
        ret { key: "y" value: "add:z:0" }
      }
      function {
        signature { name: "negate" input_arg { name: "v" type: DT_FLOAT }
                    output_arg { name: "y" type: DT_FLOAT } }
        node_def { name: "neg" op: "Neg" input: "v" attr { key: "T" value { type: DT_FLOAT } } }
        ret { key: "y" value: "neg:y:0" }
      }
      function {
        signature { name: "square" input_arg { name: "v" type: DT_FLOAT }
                    output_arg { name: "y" type: DT_FLOAT } }
        node_def { name: "mul" op: "Mul" input: "v" input: "v"
                   attr { key: "T" value { type: DT_FLOAT } } }
        ret { key: "y" value: "mul:z:0" }
      }
    })pb";
}

TEST(CaseOpTest, RunsTheIndexedBranchAndTheLastOneOutOfRange) {
  const Tensor x = AsTensor<float>({3.0f, -0.5f}, {2});
  const std::vector<std::pair<int32_t, std::vector<float>>> cases = {
      {0, {6.0f, -1.0f}}, {1, {-3.0f, 0.5f}}, {2, {9.0f, 0.25f}},
      {7, {9.0f, 0.25f}}, {-1, {9.0f, 0.25f}}};
  for (const std::string op : {"Case", "StatelessCase"}) {
    for (const auto& [branch, want] : cases) {
      auto out = RunGraphText(CaseGraph(op), {{"b", Tensor::Scalar<int32_t>(branch)}, {"x", x}},
                              {"case:0"});
      ASSERT_TRUE(out.ok()) << op << " branch " << branch << ": " << out.status();
      testing::ExpectTensorNear((*out)[0], AsTensor<float>(want, {2}));
    }
  }
  auto bad = RunGraphText(CaseGraph("Case"), {{"b", Tensor::Scalar<float>(1.0f)}, {"x", x}},
                          {"case:0"});
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument) << bad.status();
}

}  // namespace
}  // namespace tensord
