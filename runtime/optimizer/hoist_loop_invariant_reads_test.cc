#include "runtime/optimizer/hoist_loop_invariant_reads.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/graph/function_inliner.h"
#include "runtime/optimizer/optimizer_test_util.h"

namespace tensord {
namespace {

using testing::NodesByName;
using testing::ParseGraph;

// The arguments of both functions of a loop over (counter, h, weights handle).
constexpr char kArgs[] = R"pb(
  node { name: "_arg_0" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
  node { name: "_arg_1" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "_arg_2" op: "Placeholder" attr { key: "dtype" value { type: DT_RESOURCE } } }
)pb";

// The step: h = h x w, w read in the body.
constexpr char kStep[] = R"pb(
  node { name: "one" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } }
  node { name: "next" op: "AddV2" input: "_arg_0" input: "one" attr { key: "T" value { type: DT_INT32 } } }
  node { name: "w" op: "ReadVariableOp" input: "_arg_2" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "h" op: "MatMul" input: "_arg_1" input: "w:0" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "done" op: "NoOp" input: "^w" }
  node { name: "_fn" op: "IdentityN" input: "next" input: "h" input: "_arg_2" input: "^done"
         attr { key: "T" value { list { type: DT_INT32 type: DT_FLOAT type: DT_RESOURCE } } } }
)pb";

constexpr char kCondition[] = R"pb(
  node { name: "limit" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } }
  node { name: "_fn" op: "Less" input: "_arg_0" input: "limit" attr { key: "T" value { type: DT_INT32 } } }
)pb";

const std::string kBody = std::string(kArgs) + kStep;
const std::string kCond = std::string(kArgs) + kCondition;

constexpr char kOuter[] = R"pb(
  node { name: "i" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } }
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "v" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "before" op: "NoOp" }
  node { name: "loop" op: "While" input: "i" input: "x" input: "v" input: "^before"
         attr { key: "T" value { list { type: DT_INT32 type: DT_FLOAT type: DT_RESOURCE } } }
         attr { key: "output_shapes" value { list { shape {} shape {} shape {} } } } }
  node { name: "y" op: "Identity" input: "loop:1" attr { key: "T" value { type: DT_FLOAT } } }
)pb";

OpRegistry Ops() { return OpRegistry(::tensorflow::OpList(), ::tensorflow::FunctionDefLibrary()); }

// The loop of kOuter with `body` and kCond stored as the inliner stores them.
::tensorflow::GraphDef LoopGraph(const std::string& body) {
  ::tensorflow::GraphDef graph = ParseGraph(kOuter);
  for (auto& node : *graph.mutable_node()) {
    if (node.name() != "loop") continue;
    (*node.mutable_attr())[FlatFunctionAttr("body")].set_s(ParseGraph(body).SerializeAsString());
    (*node.mutable_attr())[FlatFunctionAttr("cond")].set_s(ParseGraph(kCond).SerializeAsString());
  }
  return graph;
}

::tensorflow::GraphDef Function(const ::tensorflow::NodeDef& loop, const std::string& attr) {
  ::tensorflow::GraphDef graph;
  EXPECT_TRUE(graph.ParseFromString(loop.attr().at(FlatFunctionAttr(attr)).s()));
  return graph;
}

std::vector<std::string> Inputs(const ::tensorflow::NodeDef& node) {
  return std::vector<std::string>(node.input().begin(), node.input().end());
}

TEST(HoistLoopInvariantReadsTest, TheWeightIsReadOnceBeforeTheLoop) {
  ::tensorflow::GraphDef graph = LoopGraph(kBody);
  EXPECT_EQ(HoistLoopInvariantReads(&graph, Ops()), 1);
  auto nodes = NodesByName(graph);

  // Before the loop: one read of the handle, gated like the loop.
  const auto& read = nodes.at("loop/hoisted_read_2");
  EXPECT_EQ(read.op(), "ReadVariableOp");
  EXPECT_EQ(Inputs(read), (std::vector<std::string>{"v", "^before"}));
  EXPECT_EQ(read.attr().at("dtype").type(), DT_FLOAT);

  // The loop carries the value as a fourth variable; control inputs stay last.
  const auto& loop = nodes.at("loop");
  EXPECT_EQ(Inputs(loop),
            (std::vector<std::string>{"i", "x", "v", "loop/hoisted_read_2", "^before"}));
  ASSERT_EQ(loop.attr().at("T").list().type_size(), 4);
  EXPECT_EQ(loop.attr().at("T").list().type(3), DT_FLOAT);
  ASSERT_EQ(loop.attr().at("output_shapes").list().shape_size(), 4);
  EXPECT_TRUE(loop.attr().at("output_shapes").list().shape(3).unknown_rank());

  // The body uses the new argument and returns it unchanged; the read and its control edge
  // are gone.
  auto body = NodesByName(Function(loop, "body"));
  EXPECT_FALSE(body.count("w"));
  EXPECT_EQ(body.at("_arg_3").attr().at("dtype").type(), DT_FLOAT);
  EXPECT_EQ(Inputs(body.at("h")), (std::vector<std::string>{"_arg_1", "_arg_3"}));
  EXPECT_TRUE(Inputs(body.at("done")).empty());
  EXPECT_EQ(Inputs(body.at("_fn")),
            (std::vector<std::string>{"next", "h", "_arg_2", "_arg_3", "^done"}));
  EXPECT_EQ(body.at("_fn").attr().at("T").list().type_size(), 4);

  // The condition takes the extra argument too.
  auto cond = NodesByName(Function(loop, "cond"));
  EXPECT_EQ(cond.at("_arg_3").attr().at("dtype").type(), DT_FLOAT);
}

// Each case changes kBody so that the read must stay in the loop.
TEST(HoistLoopInvariantReadsTest, ReadsThatMayChangeStayInTheLoop) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"the body writes a variable",
       R"pb(node { name: "write" op: "AssignVariableOp" input: "_arg_2" input: "h"
                   attr { key: "dtype" value { type: DT_FLOAT } } })pb"},
      {"the body runs a nested loop",
       R"pb(node { name: "inner" op: "StatelessIf" input: "next" })pb"},
      {"the handle has a use other than reads",
       R"pb(node { name: "other" op: "Identity" input: "_arg_2"
                   attr { key: "T" value { type: DT_RESOURCE } } })pb"},
  };
  for (const auto& [what, extra] : cases) {
    ::tensorflow::GraphDef graph = LoopGraph(kBody + extra);
    const std::string before = graph.SerializeAsString();
    EXPECT_EQ(HoistLoopInvariantReads(&graph, Ops()), 0) << what;
    EXPECT_EQ(graph.SerializeAsString(), before) << what;
  }

  // A step that replaces the handle (result 2 is not argument 2).
  std::string swapped = kBody;
  const std::string passed = "input: \"_arg_2\" input: \"^done\"";
  swapped.replace(swapped.find(passed), passed.size(), "input: \"other\" input: \"^done\"");
  swapped += R"pb(node { name: "other" op: "Const" attr { key: "dtype" value { type: DT_RESOURCE } } })pb";
  ::tensorflow::GraphDef graph = LoopGraph(swapped);
  EXPECT_EQ(HoistLoopInvariantReads(&graph, Ops()), 0);
}

}  // namespace
}  // namespace tensord
