#include "runtime/saved_model/restore_pruning.h"

#include <map>
#include <set>
#include <string>

#include "absl/strings/str_replace.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "runtime/saved_model/serving_optimizer.h"

namespace tensord {
namespace {

// The shape of a Keras 3 export after inlining: the signature reads `w` (through an Identity
// of its handle); the restore op also writes `w_copy`, a second handle of the same value.
constexpr char kGraph[] = R"pb(
  node { name: "x" op: "Placeholder" }
  node { name: "w" op: "VarHandleOp" attr { key: "shared_name" value { s: "w" } } }
  node { name: "w_copy" op: "VarHandleOp" attr { key: "shared_name" value { s: "COPY_NAME" } } }
  node { name: "w_handle" op: "Identity" input: "w" }
  node { name: "read" op: "ReadVariableOp" input: "w_handle" }
  node { name: "y" op: "MatMul" input: "x" input: "read" }
  node { name: "file" op: "Placeholder" }
  node { name: "restore" op: "RestoreV2" input: "file" }
  node { name: "value0" op: "Identity" input: "restore:0" }
  node { name: "value1" op: "Identity" input: "restore:1" }
  node { name: "assign_w" op: "AssignVariableOp" input: "w" input: "value0" }
  node { name: "assign_copy" op: "AssignVariableOp" input: "w_copy" input: "value1" }
  node { name: "restore_all" op: "NoOp" input: "^assign_w" input: "^assign_copy" }
)pb";

::tensorflow::GraphDef Graph(const std::string& copy_name) {
  ::tensorflow::GraphDef graph;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(
      absl::StrReplaceAll(kGraph, {{"COPY_NAME", copy_name}}), &graph));
  return graph;
}

std::map<std::string, ::tensorflow::NodeDef> Nodes(const ::tensorflow::GraphDef& graph) {
  std::map<std::string, ::tensorflow::NodeDef> out;
  for (const auto& node : graph.node()) out[node.name()] = node;
  return out;
}

absl::flat_hash_set<std::string> Serving(const ::tensorflow::GraphDef& graph) {
  return SignatureClosure(graph, {SignatureIo{{"x:0"}, {"y:0"}}});
}

TEST(RestorePruningTest, VariableResourceIsContainerAndSharedName) {
  auto nodes = Nodes(Graph("w_copy"));
  EXPECT_EQ(VariableResource(nodes["w"]), "/w");
  ::tensorflow::NodeDef unnamed;
  unnamed.set_name("v");
  unnamed.set_op("VariableV2");
  (*unnamed.mutable_attr())["container"].set_s("c");
  EXPECT_EQ(VariableResource(unnamed), "c/v");
  EXPECT_EQ(VariableResource(nodes["read"]), "");
}

TEST(RestorePruningTest, DropsTheWriteOfAVariableServingNeverReads) {
  ::tensorflow::GraphDef graph = Graph("w_copy");
  EXPECT_EQ(PruneRestore(&graph, "restore_all", Serving(graph)), 1);
  auto nodes = Nodes(graph);
  EXPECT_FALSE(nodes.count("assign_copy"));
  EXPECT_TRUE(nodes.count("assign_w"));
  ASSERT_EQ(nodes["restore_all"].input_size(), 1);
  EXPECT_EQ(nodes["restore_all"].input(0), "^assign_w");
  // What the restore runs now reads only RestoreV2's output 0.
  const auto restore = SignatureClosure(graph, {SignatureIo{{}, {"restore_all"}}});
  EXPECT_TRUE(restore.count("value0"));
  EXPECT_FALSE(restore.count("value1"));
}

TEST(RestorePruningTest, KeepsWritesOfTheSameResourceUnderAnotherHandle) {
  ::tensorflow::GraphDef graph = Graph("w");  // w_copy names the variable w
  EXPECT_EQ(PruneRestore(&graph, "restore_all", Serving(graph)), 0);
  EXPECT_EQ(graph.node_size(), 13);
}

TEST(RestorePruningTest, KeepsEverythingWhenServingRunsAFunction) {
  ::tensorflow::GraphDef graph = Graph("w_copy");
  for (auto& node : *graph.mutable_node()) {
    if (node.name() == "y") node.set_op("StatelessWhile");
  }
  EXPECT_EQ(PruneRestore(&graph, "restore_all", Serving(graph)), 0);
  EXPECT_EQ(graph.node_size(), 13);
}

}  // namespace
}  // namespace tensord
