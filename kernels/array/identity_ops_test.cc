#include <memory>

#include "Eigen/Core"
#include "gtest/gtest.h"
#include "kernels/array/array_test_util.h"
#include "runtime/framework/resource.h"
#include "runtime/framework/variant.h"

namespace tensord {
namespace testing {
namespace {

TEST(IdentityOpsTest, ForwardsEveryDtypeWithoutCopy) {
  const std::vector<Tensor> inputs = {Iota<float>({2, 3}),    Iota<int64_t>({4}),
                                      Iota<uint8_t>({1, 2}),  StringIota({3}),
                                      Iota<Eigen::half>({2}), AsTensor<bool>({true, false}, {2})};
  for (const char* op : {"Identity", "Snapshot", "StopGradient", "PreventGradient"}) {
    for (const Tensor& x : inputs) {
      for (DeviceType device : TestDevices()) {
        Tensor y = RunOne(NodeBuilder(op).Attr("T", x.dtype()).Build(), {x}, device);
        ExpectTensorEqual(y, x);
        // On a GPU RunKernel copies the input to device memory and the output back.
        if (device == DeviceType::kCpu) EXPECT_TRUE(y.SharesBufferWith(x)) << op;
      }
    }
  }
}

TEST(IdentityOpsTest, IdentityForwardsResourceHandles) {
  Tensor handle(DT_RESOURCE, TensorShape{});
  handle.scalar<ResourceHandle>() = ResourceHandle("c", "v", nullptr);
  Tensor y = RunOne(NodeBuilder("Identity").Attr("T", DT_RESOURCE).Build(), {handle});
  ASSERT_EQ(y.dtype(), DT_RESOURCE);
  EXPECT_EQ(y.scalar<ResourceHandle>().name(), "v");
}

TEST(IdentityOpsTest, IdentityForwardsVariants) {
  Tensor list(DT_VARIANT, TensorShape{});
  list.scalar<Variant>() = Variant(std::make_shared<const int>(42));
  Tensor y = RunOne(NodeBuilder("Identity").Attr("T", DT_VARIANT).Build(), {list});
  ASSERT_EQ(y.dtype(), DT_VARIANT);
  ASSERT_NE(y.scalar<Variant>().get<int>(), nullptr);
  EXPECT_EQ(*y.scalar<Variant>().get<int>(), 42);
  EXPECT_EQ(y.scalar<Variant>().get<float>(), nullptr);
}

TEST(IdentityOpsTest, IdentityNForwardsAllInputs) {
  const Tensor a = Iota<float>({2});
  const Tensor b = StringIota({1, 2});
  for (DeviceType device : TestDevices()) {
    auto out = RunKernel(
        NodeBuilder("IdentityN").Attr("T", std::vector<DataType>{DT_FLOAT, DT_STRING}).Build(),
        {a, b}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->size(), 2u);
    ExpectTensorEqual((*out)[0], a);
    ExpectTensorEqual((*out)[1], b);
  }
}

TEST(IdentityOpsTest, NoOpHasNoOutputs) {
  auto out = RunKernel(NodeBuilder("NoOp").Build(), {});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(out->empty());
}

TEST(IdentityOpsTest, EnsureShapeAcceptsCompatibleShapes) {
  const Tensor x = Iota<int32_t>({2, 3});
  for (const std::vector<int64_t>& shape :
       std::vector<std::vector<int64_t>>{{2, 3}, {-1, 3}, {2, -1}, {-1, -1}}) {
    for (DeviceType device : TestDevices()) {
      auto node = NodeBuilder("EnsureShape").Attr("T", DT_INT32).ShapeAttr("shape", shape).Build();
      ExpectTensorEqual(RunOne(node, {x}, device), x);
    }
  }
  // An unknown-rank shape attr accepts anything.
  auto node = NodeBuilder("EnsureShape").Attr("T", DT_INT32).Build();
  (*node.mutable_attr())["shape"].mutable_shape()->set_unknown_rank(true);
  ExpectTensorEqual(RunOne(node, {x}), x);
}

TEST(IdentityOpsTest, EnsureShapeRejectsIncompatibleShapes) {
  auto node = NodeBuilder("EnsureShape").Attr("T", DT_FLOAT).ShapeAttr("shape", {2, 4}).Build();
  node.add_input("x");
  ExpectInvalidArgument(node, {Iota<float>({2, 3})},
                        "Shape of tensor x [2,3] is not compatible with expected shape [2,4].");
  auto rank = NodeBuilder("EnsureShape").Attr("T", DT_FLOAT).ShapeAttr("shape", {6}).Build();
  ExpectInvalidArgument(rank, {Iota<float>({2, 3})}, "is not compatible with expected shape [6]");
}

}  // namespace
}  // namespace testing
}  // namespace tensord
