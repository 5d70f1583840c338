#include "runtime/graph/identity_elimination.h"

#include <map>
#include <string>
#include <vector>

#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace tensord {
namespace {

::tensorflow::GraphDef Parse(const std::string& text) {
  ::tensorflow::GraphDef graph;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &graph)) << text;
  return graph;
}

std::map<std::string, std::vector<std::string>> InputsByNode(const ::tensorflow::GraphDef& g) {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& node : g.node()) {
    out[node.name()] = std::vector<std::string>(node.input().begin(), node.input().end());
  }
  return out;
}

TEST(IdentityEliminationTest, ConsumersReadThroughChainsOfForwardingNodes) {
  ::tensorflow::GraphDef graph = Parse(R"pb(
    node { name: "x" op: "Placeholder" }
    node { name: "y" op: "Placeholder" }
    node { name: "id1" op: "Identity" input: "x" }
    node { name: "id2" op: "StopGradient" input: "id1" }
    node { name: "n" op: "IdentityN" input: "id2" input: "y:0" }
    node { name: "add" op: "AddV2" input: "n:1" input: "n" input: "^id1" }
    node { name: "out" op: "Identity" input: "add" }
  )pb");
  EXPECT_EQ(EliminateIdentities(&graph, {"out"}), 3);
  auto inputs = InputsByNode(graph);
  EXPECT_EQ(inputs.size(), 4u);
  EXPECT_EQ(inputs["add"], (std::vector<std::string>{"y:0", "x:0"}));  // no wait on a placeholder
  EXPECT_EQ(inputs["out"], (std::vector<std::string>{"add"}));
}

// tf.function's outputs wait for its stateful ops through control inputs on their Identity
// nodes: consumers inherit those waits, and a wait on a removed node becomes a wait on what it
// waited for (never on a placeholder, which is fed rather than run).
TEST(IdentityEliminationTest, ConsumersInheritControlInputs) {
  ::tensorflow::GraphDef graph = Parse(R"pb(
    node { name: "arg" op: "Placeholder" }
    node { name: "assign" op: "AssignVariableOp" input: "arg" }
    node { name: "read" op: "Identity" input: "arg" input: "^assign" }
    node { name: "later" op: "Identity" input: "read" }
    node { name: "neg" op: "Neg" input: "later" }
    node { name: "tick" op: "NoOp" input: "^later" }
    node { name: "result" op: "IdentityN" input: "neg" input: "^tick" }
  )pb");
  EXPECT_EQ(EliminateIdentities(&graph, {"result"}), 2);
  auto inputs = InputsByNode(graph);
  EXPECT_EQ(inputs["neg"], (std::vector<std::string>{"arg:0", "^assign"}));
  EXPECT_EQ(inputs["tick"], (std::vector<std::string>{"^assign"}));
  EXPECT_EQ(inputs["result"], (std::vector<std::string>{"neg", "^tick"}));
}

TEST(IdentityEliminationTest, KeepsWhatCarriesMeaning) {
  ::tensorflow::GraphDef graph = Parse(R"pb(
    node { name: "v" op: "VariableV2" }
    node { name: "x" op: "Placeholder" device: "/device:CPU:0" }
    node { name: "gate" op: "NoOp" }
    node { name: "snapshot" op: "Identity" input: "v" }
    node { name: "transfer" op: "Identity" input: "x" device: "/device:GPU:0" }
    node { name: "fetched" op: "Identity" input: "x" }
    node { name: "sum" op: "AddN" input: "snapshot" input: "transfer" input: "fetched" }
  )pb");
  EXPECT_EQ(EliminateIdentities(&graph, {"fetched"}), 0);
  EXPECT_EQ(graph.node_size(), 7);
}

}  // namespace
}  // namespace tensord
