#include "runtime/optimizer/graph_pass.h"

#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/optimizer/optimizer_test_util.h"

namespace tensord {
namespace {

using testing::ParseGraph;

// Appends a NoOp named `name` and counts it as one rewrite.
absl::StatusOr<int> AppendNode(const GraphPassContext& context, const std::string& name) {
  ::tensorflow::NodeDef* node = context.graph->add_node();
  node->set_name(name);
  node->set_op("NoOp");
  return 1;
}

TEST(GraphPassPipelineTest, RunsPassesInOrderAndCountsRewritesByName) {
  ::tensorflow::GraphDef graph = ParseGraph(R"pb(node { name: "a" op: "NoOp" })pb");
  GraphPassContext context{&graph, nullptr, {}};
  GraphPassPipeline pipeline;
  pipeline.Add("first", [](const GraphPassContext& c) { return AppendNode(c, "b"); });
  pipeline.Add("second", [](const GraphPassContext& c) -> absl::StatusOr<int> {
    // Sees what the first pass wrote.
    return c.graph->node_size();
  });
  EXPECT_EQ(pipeline.Names(), (std::vector<std::string>{"first", "second"}));

  std::map<std::string, int> rewrites = {{"first", 5}};
  ASSERT_TRUE(pipeline.Run(context, &rewrites).ok());
  EXPECT_EQ(graph.node_size(), 2);
  EXPECT_EQ(graph.node(1).name(), "b");
  // Counts add to what the map held, so several pipelines of one load share one map.
  EXPECT_EQ(rewrites, (std::map<std::string, int>{{"first", 6}, {"second", 2}}));
}

TEST(GraphPassPipelineTest, FailingPassStopsTheRunAndIsNamed) {
  ::tensorflow::GraphDef graph;
  GraphPassContext context{&graph, nullptr, {}};
  GraphPassPipeline pipeline;
  pipeline.Add("breaks", [](const GraphPassContext&) -> absl::StatusOr<int> {
    return absl::InvalidArgumentError("filter has 3 dims");
  });
  pipeline.Add("after", [](const GraphPassContext& c) { return AppendNode(c, "never"); });
  std::map<std::string, int> rewrites;
  const absl::Status status = pipeline.Run(context, &rewrites);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "breaks: filter has 3 dims");
  EXPECT_EQ(graph.node_size(), 0);
  EXPECT_TRUE(rewrites.empty());
}

// A pass with state the caller reads after the run, as the loader does with the filter scales
// of fold_affine_into_conv.
class CountingPass : public GraphPass {
 public:
  const std::string& name() const override { return name_; }
  absl::StatusOr<int> Run(const GraphPassContext& context) override {
    seen_ = context.graph->node_size();
    return 0;
  }
  int seen() const { return seen_; }

 private:
  const std::string name_ = "counting";
  int seen_ = -1;
};

TEST(GraphPassPipelineTest, AddReturnsTheOwnedPass) {
  ::tensorflow::GraphDef graph = ParseGraph(R"pb(node { name: "a" op: "NoOp" }
                                              node { name: "b" op: "NoOp" })pb");
  GraphPassPipeline pipeline;
  CountingPass* pass = pipeline.Add(std::make_unique<CountingPass>());
  ASSERT_TRUE(pipeline.Run(GraphPassContext{&graph, nullptr, {}}, nullptr).ok());
  EXPECT_EQ(pass->seen(), 2);
}

}  // namespace
}  // namespace tensord
