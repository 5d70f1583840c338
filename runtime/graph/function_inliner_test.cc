#include "runtime/graph/function_inliner.h"

#include <map>

#include "google/protobuf/arena.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace tensord {
namespace {

using ::tensorflow::FunctionDefLibrary;
using ::tensorflow::GraphDef;
using ::tensorflow::NodeDef;
using ::tensorflow::OpList;

template <typename T>
T Parse(const char* text) {
  T proto;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &proto)) << text;
  return proto;
}

// Ops as a model's stripped_op_list would describe them (defaults included).
const char kOps[] = R"pb(
  op { name: "Mul" input_arg { name: "x" type_attr: "T" } input_arg { name: "y" type_attr: "T" }
       output_arg { name: "z" type_attr: "T" } attr { name: "T" type: "type" } }
  op { name: "Split" input_arg { name: "split_dim" type: DT_INT32 }
       input_arg { name: "value" type_attr: "T" }
       output_arg { name: "output" type_attr: "T" number_attr: "num_split" }
       attr { name: "num_split" type: "int" } attr { name: "T" type: "type" } }
  op { name: "MatMul" input_arg { name: "a" type_attr: "T" } input_arg { name: "b" type_attr: "T" }
       output_arg { name: "product" type_attr: "T" }
       attr { name: "transpose_a" type: "bool" default_value { b: false } }
       attr { name: "T" type: "type" } }
  op { name: "StatefulPartitionedCall"
       input_arg { name: "args" type_list_attr: "Tin" }
       output_arg { name: "output" type_list_attr: "Tout" }
       attr { name: "Tin" type: "list(type)" } attr { name: "Tout" type: "list(type)" }
       attr { name: "f" type: "func" } }
  op { name: "NoOp" }
  op { name: "Const" output_arg { name: "output" type_attr: "dtype" }
       attr { name: "value" type: "tensor" } attr { name: "dtype" type: "type" } }
)pb";

// outer(x) = inner(x)[1] * x, where inner(v) splits v in two; outer also has a side-effect
// node listed in control_ret.
const char kLibrary[] = R"pb(
  function {
    signature { name: "inner" input_arg { name: "v" type: DT_FLOAT }
                output_arg { name: "a" type: DT_FLOAT } output_arg { name: "b" type: DT_FLOAT } }
    node_def { name: "dim" op: "Const" }
    node_def { name: "split" op: "Split" input: "dim:output:0" input: "v"
               attr { key: "num_split" value { i: 2 } } attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "a" value: "split:output:0" }
    ret { key: "b" value: "split:output:1" }
  }
  function {
    signature { name: "outer" input_arg { name: "x" type: DT_FLOAT }
                output_arg { name: "y" type: DT_FLOAT } }
    node_def { name: "call" op: "StatefulPartitionedCall" input: "x"
               attr { key: "f" value { func { name: "inner" } } }
               attr { key: "Tin" value { list { type: DT_FLOAT } } }
               attr { key: "Tout" value { list { type: DT_FLOAT type: DT_FLOAT } } } }
    node_def { name: "mul" op: "Mul" input: "call:output:1" input: "x"
               attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "mm" op: "MatMul" input: "x" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "effect" op: "NoOp" }
    ret { key: "y" value: "mul:z:0" }
    control_ret { key: "effect" value: "effect" }
  }
)pb";

std::map<std::string, NodeDef> ByName(const GraphDef& g) {
  std::map<std::string, NodeDef> out;
  for (const auto& n : g.node()) out[n.name()] = n;
  return out;
}

// Calls "outer" (which calls "inner") with a control input, and uses its result.
constexpr char kCaller[] = R"pb(
  node { name: "input" op: "Placeholder" }
  node { name: "gate" op: "NoOp" }
  node { name: "top" op: "outer" input: "input" input: "^gate" }
  node { name: "use" op: "Mul" input: "top:0" input: "top" attr { key: "T" value { type: DT_FLOAT } } }
)pb";

TEST(FunctionInlinerTest, InlinesNestedCallsAndResolvesOutputArgs) {
  OpRegistry ops(Parse<OpList>(kOps), Parse<FunctionDefLibrary>(kLibrary));
  GraphDef graph = Parse<GraphDef>(kCaller);
  GraphDef flat;
  absl::Status inlined = InlineFunctions(graph, ops, &flat);
  ASSERT_TRUE(inlined.ok()) << inlined;
  auto nodes = ByName(flat);

  // The call node becomes an IdentityN forwarding the function result and waiting on
  // control outputs.
  ASSERT_TRUE(nodes.count("top"));
  EXPECT_EQ(nodes["top"].op(), "IdentityN");
  ASSERT_EQ(nodes["top"].input_size(), 2);
  EXPECT_EQ(nodes["top"].input(0), "top/mul:0");
  EXPECT_EQ(nodes["top"].input(1), "^top/effect");

  // Arg references become the caller's inputs; out_arg references become flat indices.
  const NodeDef& mul = nodes["top/mul"];
  EXPECT_EQ(mul.input(0), "top/call:1");
  EXPECT_EQ(mul.input(1), "input");
  EXPECT_EQ(nodes["top/call/split"].input(0), "top/call/dim:0");
  EXPECT_EQ(nodes["top/call/split"].input(1), "input");
  EXPECT_EQ(nodes["top/call"].op(), "IdentityN");
  EXPECT_EQ(nodes["top/call"].input(1), "top/call/split:1");

  // Control inputs of the call gate the body.
  ASSERT_TRUE(nodes.count("top/_call_control"));
  EXPECT_EQ(nodes["top/_call_control"].input(0), "^gate");
  EXPECT_EQ(nodes["top/mm"].input(2), "^top/_call_control");

  // Stripped default attrs come back.
  ASSERT_TRUE(nodes["top/mm"].attr().count("transpose_a"));
  EXPECT_FALSE(nodes["top/mm"].attr().at("transpose_a").b());
  EXPECT_EQ(nodes["use"].input(0), "top:0");
}

// The loader inlines into a graph on an arena; nodes are then built on that arena.
TEST(FunctionInlinerTest, InlinesIntoAGraphOnAnArenaAsOnTheHeap) {
  OpRegistry ops(Parse<OpList>(kOps), Parse<FunctionDefLibrary>(kLibrary));
  const GraphDef graph = Parse<GraphDef>(kCaller);
  GraphDef on_heap;
  ASSERT_TRUE(InlineFunctions(graph, ops, &on_heap).ok());
  google::protobuf::Arena arena;
  auto* on_arena = google::protobuf::Arena::CreateMessage<GraphDef>(&arena);
  on_arena->add_node()->set_name("left over");  // cleared first
  absl::Status inlined = InlineFunctions(graph, ops, on_arena);
  ASSERT_TRUE(inlined.ok()) << inlined;
  EXPECT_EQ(on_arena->node_size(), on_heap.node_size());
  EXPECT_EQ(on_arena->DebugString(), on_heap.DebugString());
  for (const NodeDef& node : on_arena->node()) EXPECT_EQ(node.GetArena(), &arena) << node.name();
}

TEST(FunctionInlinerTest, MissingFunctionAndBadReferencesAreErrors) {
  OpRegistry ops(Parse<OpList>(kOps), Parse<FunctionDefLibrary>(kLibrary));
  GraphDef graph = Parse<GraphDef>(R"pb(
    node { name: "c" op: "StatefulPartitionedCall" attr { key: "f" value { func { name: "gone" } } } }
  )pb");
  GraphDef flat;
  absl::Status inlined = InlineFunctions(graph, ops, &flat);
  ASSERT_FALSE(inlined.ok());
  EXPECT_NE(inlined.message().find("'gone'"), std::string::npos) << inlined;

  FunctionDefLibrary lib = Parse<FunctionDefLibrary>(R"pb(
    function {
      signature { name: "broken" output_arg { name: "y" type: DT_FLOAT } }
      node_def { name: "n" op: "Mul" attr { key: "T" value { type: DT_FLOAT } } }
      ret { key: "y" value: "n:nonexistent:0" }
    }
  )pb");
  OpRegistry broken_ops(Parse<OpList>(kOps), lib);
  graph = Parse<GraphDef>(R"pb(node { name: "c" op: "broken" })pb");
  inlined = InlineFunctions(graph, broken_ops, &flat);
  ASSERT_FALSE(inlined.ok());
  EXPECT_NE(inlined.message().find("nonexistent"), std::string::npos) << inlined;

  graph = Parse<GraphDef>(R"pb(node { name: "c" op: "outer" })pb");  // missing input
  OpRegistry good(Parse<OpList>(kOps), Parse<FunctionDefLibrary>(kLibrary));
  inlined = InlineFunctions(graph, good, &flat);
  ASSERT_FALSE(inlined.ok());
  EXPECT_NE(inlined.message().find("takes 1"), std::string::npos) << inlined;
}

TEST(FunctionInlinerTest, ControlFlowKeepsItsNodeAndCarriesFlattenedFunctions) {
  OpRegistry ops(Parse<OpList>(kOps), Parse<FunctionDefLibrary>(kLibrary));
  GraphDef graph = Parse<GraphDef>(R"pb(
    node { name: "input" op: "Placeholder" }
    node { name: "pick" op: "StatelessCase" input: "i" input: "input"
           attr { key: "branches" value { list { func { name: "outer" } func { name: "inner" } } } } }
    node { name: "loop" op: "While" input: "input"
           attr { key: "cond" value { func { name: "outer" } } }
           attr { key: "body" value { func { name: "gone" } } } }
  )pb");
  // A missing function does not fail inlining (the node may never run); the reason, naming
  // the node, waits on the node for its kernel.
  GraphDef missing;
  absl::Status inlined = InlineFunctions(graph, ops, &missing);
  ASSERT_TRUE(inlined.ok()) << inlined;
  auto missing_nodes = ByName(missing);
  const auto& loop_attrs = missing_nodes["loop"].attr();
  ASSERT_TRUE(loop_attrs.count(FlatFunctionErrorAttr("body")));
  EXPECT_NE(loop_attrs.at(FlatFunctionErrorAttr("body")).s().find("'loop'"), std::string::npos);
  EXPECT_TRUE(loop_attrs.count(FlatFunctionAttr("cond")));

  graph.mutable_node(2)->mutable_attr()->at("body").mutable_func()->set_name("outer");
  GraphDef flat;
  inlined = InlineFunctions(graph, ops, &flat);
  ASSERT_TRUE(inlined.ok()) << inlined;
  auto nodes = ByName(flat);
  ASSERT_EQ(nodes["loop"].op(), "While");
  EXPECT_EQ(nodes["loop"].input(0), "input");

  GraphDef body;
  ASSERT_TRUE(body.ParseFromString(nodes["loop"].attr().at(FlatFunctionAttr("body")).s()));
  auto body_nodes = ByName(body);
  EXPECT_EQ(body_nodes[FunctionArgName(0)].op(), "Placeholder");
  EXPECT_EQ(body_nodes[FunctionArgName(0)].attr().at("dtype").type(), ::tensorflow::DT_FLOAT);
  // The function is inlined inside its own graph: nested calls and control outputs included.
  EXPECT_EQ(body_nodes[FunctionCallName()].op(), "IdentityN");
  EXPECT_EQ(body_nodes[FunctionCallName()].input(0), "_fn/mul:0");
  EXPECT_EQ(body_nodes[FunctionCallName()].input(1), "^_fn/effect");
  EXPECT_EQ(body_nodes["_fn/mul"].input(1), FunctionArgName(0));
  EXPECT_TRUE(body_nodes.count("_fn/call/split"));

  const auto& branches = nodes["pick"].attr().at(FlatFunctionAttr("branches"));
  ASSERT_EQ(branches.list().s_size(), 2);
  GraphDef second;
  ASSERT_TRUE(second.ParseFromString(branches.list().s(1)));
  EXPECT_EQ(ByName(second)[FunctionCallName()].input_size(), 2);  // inner returns two values
}

}  // namespace
}  // namespace tensord
