#include "runtime/optimizer/fuse_elementwise.h"

#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "runtime/optimizer/optimizer_test_util.h"

namespace tensord {
namespace {

using testing::NodesByName;
using testing::ParseGraph;

// An LSTM cell: c' = sigmoid(f) * c + sigmoid(i) * tanh(g); h = sigmoid(o) * tanh(c'). c' is
// read twice (by h and as a result), so it ends one group and feeds the next.
constexpr char kLstmCell[] = R"pb(
  node { name: "f" op: "Placeholder" }
  node { name: "c" op: "Placeholder" }
  node { name: "i" op: "Placeholder" }
  node { name: "g" op: "Placeholder" }
  node { name: "o" op: "Placeholder" }
  node { name: "gate" op: "NoOp" }
  node { name: "sf" op: "Sigmoid" input: "f" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "fc" op: "Mul" input: "sf" input: "c" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "si" op: "Sigmoid" input: "i" input: "^gate" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "tg" op: "Tanh" input: "g" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "ig" op: "Mul" input: "si" input: "tg:0" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "c_new" op: "AddV2" input: "fc" input: "ig" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "so" op: "Sigmoid" input: "o" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "tc" op: "Tanh" input: "c_new" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "h" op: "Mul" input: "so" input: "tc" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "h_out" op: "Identity" input: "h" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "c_out" op: "Identity" input: "c_new" attr { key: "T" value { type: DT_FLOAT } } }
)pb";

std::vector<std::string> Strings(const ::tensorflow::AttrValue& value) {
  return std::vector<std::string>(value.list().s().begin(), value.list().s().end());
}

std::vector<int64_t> Ints(const ::tensorflow::AttrValue& value) {
  return std::vector<int64_t>(value.list().i().begin(), value.list().i().end());
}

TEST(FuseElementwiseTest, AnLstmCellBecomesTwoKernels) {
  ::tensorflow::GraphDef graph = ParseGraph(kLstmCell);
  EXPECT_EQ(FuseElementwise({&graph, nullptr, {}}), 7);
  auto nodes = NodesByName(graph);
  for (const char* gone : {"sf", "fc", "si", "tg", "ig", "so", "tc"}) EXPECT_FALSE(nodes.count(gone));
  const auto& c_new = nodes["c_new"];
  ASSERT_EQ(c_new.op(), "_FusedElementwise");
  // Inputs in the order the program first reads them, then the members' control inputs.
  EXPECT_EQ(std::vector<std::string>(c_new.input().begin(), c_new.input().end()),
            (std::vector<std::string>{"f", "c", "i", "g", "^gate"}));
  EXPECT_EQ(Strings(c_new.attr().at("ops")),
            (std::vector<std::string>{"Sigmoid", "Mul", "Sigmoid", "Tanh", "Mul", "AddV2"}));
  // Operands: inputs 0-3, then results 4 (sf), 5 (fc), 6 (si), 7 (tg), 8 (ig).
  EXPECT_EQ(Ints(c_new.attr().at("operands")),
            (std::vector<int64_t>{0, -1, 4, 1, 2, -1, 3, -1, 6, 7, 5, 8}));
  const auto& h = nodes["h"];
  ASSERT_EQ(h.op(), "_FusedElementwise");
  EXPECT_EQ(std::vector<std::string>(h.input().begin(), h.input().end()),
            (std::vector<std::string>{"o", "c_new"}));
  EXPECT_EQ(Strings(h.attr().at("ops")), (std::vector<std::string>{"Sigmoid", "Tanh", "Mul"}));
  EXPECT_EQ(Ints(h.attr().at("operands")), (std::vector<int64_t>{0, -1, 1, -1, 2, 3}));
  EXPECT_EQ(nodes["h_out"].input(0), "h");
}

TEST(FuseElementwiseTest, FetchedOtherTypedAndOtherDeviceOpsStayOut) {
  // The sigmoid is fetched by a signature: it stays a node of its own.
  ::tensorflow::GraphDef graph = ParseGraph(kLstmCell);
  EXPECT_EQ(FuseElementwise({&graph, nullptr, {"sf", "tc"}}), 5);
  auto nodes = NodesByName(graph);
  EXPECT_EQ(nodes["sf"].op(), "Sigmoid");
  EXPECT_EQ(nodes["tc"].op(), "Tanh");
  EXPECT_EQ(nodes["h"].input(1), "tc");

  // Not float, or on another device than its consumer: not fused.
  std::string text = absl::StrReplaceAll(
      kLstmCell, {{R"(name: "sf" op: "Sigmoid" input: "f" attr { key: "T" value { type: DT_FLOAT } })",
                   R"(name: "sf" op: "Sigmoid" input: "f" attr { key: "T" value { type: DT_DOUBLE } })"},
                  {R"(name: "tg" op: "Tanh")", R"(name: "tg" op: "Tanh" device: "/device:GPU:0")"}});
  graph = ParseGraph(text);
  EXPECT_EQ(FuseElementwise({&graph, nullptr, {}}), 5);  // c_new from 4 ops, h from 3
  nodes = NodesByName(graph);
  EXPECT_EQ(nodes["sf"].op(), "Sigmoid");
  EXPECT_EQ(nodes["tg"].op(), "Tanh");
  EXPECT_EQ(Strings(nodes["c_new"].attr().at("ops")),
            (std::vector<std::string>{"Mul", "Sigmoid", "Mul", "AddV2"}));
}

}  // namespace
}  // namespace tensord
