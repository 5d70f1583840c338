#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/testing/kernel_test_util.h"

namespace tensord {
namespace {

using testing::AsTensor;
using testing::ExpectTensorEqual;
using testing::ExpectTensorNear;
using testing::NodeBuilder;
using testing::RunKernel;
using testing::TestDevices;

absl::StatusOr<Tensor> RunEinsum(const std::string& equation, const std::vector<Tensor>& inputs,
                                 DeviceType device) {
  auto out = RunKernel(NodeBuilder("Einsum")
                           .Attr("T", inputs[0].dtype())
                           .Attr("N", static_cast<int64_t>(inputs.size()))
                           .Attr("equation", equation)
                           .Build(),
                       inputs, device);
  if (!out.ok()) return out.status();
  return (*out)[0];
}

Tensor Pattern(const std::vector<int64_t>& dims, int seed) {
  Tensor t(DT_FLOAT, TensorShape(dims));
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    t.data<float>()[i] = static_cast<float>(((i * 7 + seed * 5) % 13) - 6) / 4.0f;
  }
  return t;
}

// Naive einsum for equations without "...": loop over every assignment of every label.
Tensor NaiveEinsum(const std::string& equation, const std::vector<Tensor>& inputs) {
  const size_t arrow = equation.find("->");
  std::vector<std::string> subs;
  std::string lhs = equation.substr(0, arrow);
  const std::string out_sub = equation.substr(arrow + 2);
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    subs.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  std::map<char, int64_t> size;
  for (size_t i = 0; i < subs.size(); ++i) {
    for (size_t d = 0; d < subs[i].size(); ++d) size[subs[i][d]] = inputs[i].dim_size(d);
  }
  std::vector<char> labels;
  for (const auto& [label, s] : size) labels.push_back(label);
  std::vector<int64_t> out_dims;
  for (char ch : out_sub) out_dims.push_back(size[ch]);
  Tensor out(DT_FLOAT, TensorShape(out_dims));
  std::vector<double> acc(out.NumElements(), 0.0);
  std::map<char, int64_t> value;
  for (char ch : labels) value[ch] = 0;
  auto flat = [&](const std::string& sub, absl::Span<const int64_t> dims) {
    int64_t index = 0;
    for (size_t d = 0; d < sub.size(); ++d) index = index * dims[d] + value[sub[d]];
    return index;
  };
  while (true) {
    double product = 1;
    for (size_t i = 0; i < subs.size(); ++i) {
      product *= inputs[i].data<float>()[flat(subs[i], inputs[i].shape().dim_sizes())];
    }
    acc[flat(out_sub, out_dims)] += product;
    size_t k = 0;
    for (; k < labels.size(); ++k) {
      if (++value[labels[k]] < size[labels[k]]) break;
      value[labels[k]] = 0;
    }
    if (k == labels.size()) break;
  }
  for (int64_t i = 0; i < out.NumElements(); ++i) out.data<float>()[i] = acc[i];
  return out;
}

TEST(EinsumOpTest, MatchesNaiveEinsum) {
  struct Case {
    std::string equation;
    std::vector<std::vector<int64_t>> shapes;
  };
  const std::vector<Case> cases = {
      {"ab,bc->ac", {{3, 4}, {4, 5}}},
      {"abc,cd->abd", {{2, 3, 4}, {4, 5}}},
      {"abc,cde->abde", {{2, 3, 4}, {4, 5, 6}}},
      {"abcd,cde->abe", {{2, 3, 4, 5}, {4, 5, 6}}},
      {"abcd,aecd->acbe", {{2, 3, 4, 5}, {2, 6, 4, 5}}},
      {"acbe,aecd->abcd", {{2, 4, 3, 6}, {2, 6, 4, 5}}},
      {"aecd,abcd->acbe", {{2, 6, 4, 5}, {2, 3, 4, 5}}},
      {"bij,bjk->bik", {{3, 2, 4}, {3, 4, 5}}},
      {"ab,ac->bc", {{4, 3}, {4, 5}}},
      {"ba,ca->bc", {{3, 4}, {5, 4}}},
      {"ij,jk->ki", {{3, 4}, {4, 5}}},
      {"ij,ij->ij", {{3, 4}, {3, 4}}},
      {"ij,ij->i", {{3, 4}, {3, 4}}},
      {"ij,ij->", {{3, 4}, {3, 4}}},
      {"i,j->ij", {{3}, {4}}},
      {"ij,kl->ik", {{2, 3}, {4, 5}}},
      {"iij,jk->ik", {{3, 3, 4}, {4, 2}}},
      {"abc,bd->dca", {{2, 3, 4}, {3, 5}}},
      {"ii->i", {{4, 4}}},
      {"ii->", {{4, 4}}},
      {"ij->ji", {{3, 5}}},
      {"ij->", {{3, 5}}},
      {"ijk->kj", {{2, 3, 4}}},
      {"iji->j", {{3, 2, 3}}},
  };
  for (DeviceType device : TestDevices()) {
    for (const Case& c : cases) {
      SCOPED_TRACE(c.equation);
      std::vector<Tensor> inputs;
      for (size_t i = 0; i < c.shapes.size(); ++i) inputs.push_back(Pattern(c.shapes[i], i + 1));
      auto z = RunEinsum(c.equation, inputs, device);
      ASSERT_TRUE(z.ok()) << z.status();
      ExpectTensorNear(*z, NaiveEinsum(c.equation, inputs));
    }
  }
}

// "...ij,...jk->...ik" with batch dims [2,1] and [5] broadcasting to [2,5].
TEST(EinsumOpTest, EllipsisBroadcasting) {
  const Tensor x = Pattern({2, 1, 3, 4}, 1);
  const Tensor y = Pattern({5, 4, 6}, 2);
  Tensor want(DT_FLOAT, TensorShape{2, 5, 3, 6});
  for (int a = 0; a < 2; ++a) {
    for (int b = 0; b < 5; ++b) {
      for (int i = 0; i < 3; ++i) {
        for (int k = 0; k < 6; ++k) {
          double sum = 0;
          for (int j = 0; j < 4; ++j) {
            sum += x.data<float>()[(a * 3 + i) * 4 + j] * y.data<float>()[(b * 4 + j) * 6 + k];
          }
          want.data<float>()[((a * 5 + b) * 3 + i) * 6 + k] = sum;
        }
      }
    }
  }
  for (DeviceType device : TestDevices()) {
    auto z = RunEinsum("...ij,...jk->...ik", {x, y}, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorNear(*z, want);
    // Ellipsis covering no dims, and a unary ellipsis transpose.
    auto m = RunEinsum("...ij,jk->...ik", {Pattern({3, 4}, 1), Pattern({4, 2}, 2)}, device);
    ASSERT_TRUE(m.ok()) << m.status();
    ExpectTensorNear(*m, NaiveEinsum("ij,jk->ik", {Pattern({3, 4}, 1), Pattern({4, 2}, 2)}));
    auto t = RunEinsum("...ij->...ji", {Pattern({2, 3, 4}, 3)}, device);
    ASSERT_TRUE(t.ok()) << t.status();
    ExpectTensorNear(*t, NaiveEinsum("aij->aji", {Pattern({2, 3, 4}, 3)}));
    // Ellipsis dims missing from the output are summed.
    auto s = RunEinsum("...i->i", {Pattern({2, 3, 4}, 3)}, device);
    ASSERT_TRUE(s.ok()) << s.status();
    ExpectTensorNear(*s, NaiveEinsum("abi->i", {Pattern({2, 3, 4}, 3)}));
  }
}

TEST(EinsumOpTest, IntegersAndEmpty) {
  for (DeviceType device : TestDevices()) {
    auto z =
        RunEinsum("ij,jk->ik",
                  {AsTensor<int32_t>({1, 2}, {1, 2}), AsTensor<int32_t>({3, 4}, {2, 1})}, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<int32_t>({11}, {1, 1}));
    z = RunEinsum("ij,jk->ik", {Pattern({0, 3}, 0), Pattern({3, 2}, 0)}, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, Tensor(DT_FLOAT, TensorShape{0, 2}));
    z = RunEinsum("ij,jk->ik", {Pattern({2, 0}, 0), Pattern({0, 3}, 0)}, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, Tensor(DT_FLOAT, TensorShape{2, 3}));
  }
}

TEST(EinsumOpTest, Errors) {
  const Tensor a = Pattern({2, 3}, 0);
  for (DeviceType device : TestDevices()) {
    const std::vector<std::pair<std::string, std::vector<Tensor>>> bad = {
        {"ab,bc", {a, Pattern({3, 4}, 0)}},
        {"ab,bc->ac", {a, Pattern({4, 4}, 0)}},
        {"abc,bc->ac", {a, Pattern({3, 4}, 0)}},
        {"ab->c", {a}},
        {"ab->aa", {a}},
        {"a1->a", {a}},
        {"ab,bc,c->a", {a, Pattern({3, 4}, 0), Pattern({4}, 0)}},
    };
    for (const auto& [equation, inputs] : bad) {
      SCOPED_TRACE(equation);
      auto z = RunEinsum(equation, inputs, device);
      EXPECT_EQ(z.status().code(), absl::StatusCode::kInvalidArgument) << z.status();
    }
  }
}

}  // namespace
}  // namespace tensord
