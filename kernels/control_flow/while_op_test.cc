#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "kernels/control_flow/control_flow_test_util.h"
#include "kernels/testing/kernel_test_util.h"
#include "runtime/framework/cancellation.h"

namespace tensord {
namespace {

using testing::AsTensor;
using testing::RunGraphText;

// loop: (i, n, acc) -> while i < n: (i + 1, n, acc + acc). `cond_const` replaces the
// condition by a constant true (a loop that never ends by itself).
std::string LoopGraph(const std::string& op, bool cond_const = false) {
  const std::string cond_body =
      cond_const ? R"(node_def { name: "t" op: "Const" attr { key: "dtype" value { type: DT_BOOL } }
                       attr { key: "value" value { tensor { dtype: DT_BOOL tensor_shape {}
                                                            bool_val: true } } } }
                     ret { key: "go" value: "t:output:0" })"
                 : R"(node_def { name: "less" op: "Less" input: "i" input: "n"
                                 attr { key: "T" value { type: DT_INT32 } } }
                     ret { key: "go" value: "less:z:0" })";
  return R"pb(
    node { name: "n" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "zero" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
           attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
    node { name: "loop" op: ")pb" + op + R"pb(" input: "zero" input: "n" input: "x"
           attr { key: "T" value { list { type: DT_INT32 type: DT_INT32 type: DT_FLOAT } } }
           attr { key: "cond" value { func { name: "cond" } } }
           attr { key: "body" value { func { name: "body" } } } }
    library {
      function {
        signature { name: "cond" input_arg { name: "i" type: DT_INT32 }
                    input_arg { name: "n" type: DT_INT32 } input_arg { name: "acc" type: DT_FLOAT }
                    output_arg { name: "go" type: DT_BOOL } }
        )pb" + cond_body + R"pb(
      }
      function {
        signature { name: "body" input_arg { name: "i" type: DT_INT32 }
                    input_arg { name: "n" type: DT_INT32 } input_arg { name: "acc" type: DT_FLOAT }
                    output_arg { name: "i2" type: DT_INT32 } output_arg { name: "n2" type: DT_INT32 }
                    output_arg { name: "acc2" type: DT_FLOAT } }
        node_def { name: "one" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
                   attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {}
                                                        int_val: 1 } } } }
        node_def { name: "inc" op: "AddV2" input: "i" input: "one:output:0"
                   attr { key: "T" value { type: DT_INT32 } } }
        node_def { name: "twice" op: "AddV2" input: "acc" input: "acc"
                   attr { key: "T" value { type: DT_FLOAT } } }
        ret { key: "i2" value: "inc:z:0" }
        ret { key: "n2" value: "n" }
        ret { key: "acc2" value: "twice:z:0" }
      }
    })pb";
}

TEST(WhileOpTest, RunsTheBodyWhileTheConditionHolds) {
  for (const std::string op : {"While", "StatelessWhile"}) {
    for (int n : {0, 1, 5}) {
      auto out = RunGraphText(LoopGraph(op),
                              {{"n", Tensor::Scalar<int32_t>(n)},
                               {"x", AsTensor<float>({1.5f, -2.0f}, {2})}},
                              {"loop:0", "loop:2"});
      ASSERT_TRUE(out.ok()) << op << " n=" << n << ": " << out.status();
      testing::ExpectTensorEqual((*out)[0], Tensor::Scalar<int32_t>(n));
      const float scale = static_cast<float>(1 << n);
      testing::ExpectTensorNear((*out)[1], AsTensor<float>({1.5f * scale, -2.0f * scale}, {2}));
    }
  }
}

TEST(WhileOpTest, AnEndlessLoopStopsAtTheDeadline) {
  const CancellationToken token(absl::Now() + absl::Milliseconds(50));
  RunOptions options;
  options.cancellation = &token;
  auto out = RunGraphText(LoopGraph("While", /*cond_const=*/true),
                          {{"n", Tensor::Scalar<int32_t>(1)},
                           {"x", AsTensor<float>({1.0f}, {1})}},
                          {"loop:0"}, options);
  EXPECT_EQ(out.status().code(), absl::StatusCode::kDeadlineExceeded) << out.status();
}

// A loop whose body is missing from the library loads; it fails only when it runs, naming
// the node and the function.
TEST(WhileOpTest, AMissingFunctionFailsOnlyWhenTheLoopRuns) {
  std::string graph = LoopGraph("While");
  const std::string body_attr = "func { name: \"body\" }";
  graph.replace(graph.find(body_attr), body_attr.size(), "func { name: \"gone\" }");
  graph += R"pb(node { name: "y" op: "Identity" input: "x"
                       attr { key: "T" value { type: DT_FLOAT } } })pb";
  const std::vector<std::pair<std::string, Tensor>> feeds = {
      {"n", Tensor::Scalar<int32_t>(2)}, {"x", AsTensor<float>({1.0f}, {1})}};
  auto unused = RunGraphText(graph, feeds, {"y:0"});
  ASSERT_TRUE(unused.ok()) << unused.status();
  auto used = RunGraphText(graph, feeds, {"loop:2"});
  EXPECT_EQ(used.status().code(), absl::StatusCode::kInvalidArgument) << used.status();
  EXPECT_NE(used.status().message().find("'gone'"), std::string::npos) << used.status();
  EXPECT_NE(used.status().message().find("'loop'"), std::string::npos) << used.status();
}

}  // namespace
}  // namespace tensord
