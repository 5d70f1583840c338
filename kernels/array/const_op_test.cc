#include "Eigen/Core"
#include "gtest/gtest.h"
#include "kernels/array/array_test_util.h"
#include "runtime/framework/kernel_registry.h"

namespace tensord {
namespace testing {
namespace {

TEST(ConstOpTest, OutputsValueAttrForEveryRun) {
  const std::vector<Tensor> values = {AsTensor<float>({1.5f, -2.f, 3.25f}, {3}),
                                      Iota<int64_t>({2, 2}),
                                      Strings({"a", "bc"}, {2}),
                                      AsTensor<bool>({true}, {}),
                                      AsTensor<std::complex<float>>({{1, 2}, {3, -4}}, {2}),
                                      Iota<Eigen::bfloat16>({2, 1})};
  for (const Tensor& value : values) {
    auto node = NodeBuilder("Const").Attr("dtype", value.dtype()).Attr("value", value).Build();
    for (DeviceType device : TestDevices()) {
      ExpectTensorEqual(RunOne(node, {}, device), value);
    }
  }
}

TEST(ConstOpTest, ForwardsOneBufferWithoutCopying) {
  auto node = NodeBuilder("Const").Attr("dtype", DT_FLOAT).Attr("value", Iota<float>({4})).Build();
  auto kernel = KernelRegistry::Global().CreateKernel(node, DeviceType::kCpu);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  auto run = [&] {
    OpKernelContext::Params params;
    params.node_name = &node.name();
    params.num_outputs = 1;
    OpKernelContext c(std::move(params));
    EXPECT_TRUE((*kernel)->Compute(&c).ok());
    return c.outputs()[0];
  };
  Tensor first = run();
  Tensor second = run();
  EXPECT_TRUE(first.SharesBufferWith(second));
}

TEST(ConstOpTest, DtypeMismatchFailsAtConstruction) {
  auto node = NodeBuilder("Const").Attr("dtype", DT_INT32).Attr("value", Iota<float>({2})).Build();
  auto out = RunKernel(node, {});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()),
              ::testing::HasSubstr("Type mismatch between value (float) and dtype (int32)"));
}

}  // namespace
}  // namespace testing
}  // namespace tensord
