#include "gtest/gtest.h"
#include "kernels/array/array_test_util.h"
#include "runtime/framework/kernel_registry.h"

namespace tensord {
namespace testing {
namespace {

::tensorflow::NodeDef Print(std::vector<DataType> u, int first_n = -1) {
  return NodeBuilder("Print")
      .Attr("T", DT_FLOAT)
      .Attr("U", u)
      .Attr("message", "msg: ")
      .Attr("first_n", first_n)
      .Attr("summarize", 3)
      .Build();
}

TEST(PrintOpTest, LogsSummariesAndForwardsInput) {
  // The layout TensorFlow 2.21 prints for these tensors:
  // msg: [[1.5 2][3...]...][1 2 3...][ab]
  const Tensor x = AsTensor<float>({1.5f, 2, 3, 4}, {2, 2});
  for (DeviceType device : TestDevices()) {
    ::testing::internal::CaptureStderr();
    Tensor y = RunOne(Print({DT_FLOAT, DT_INT32, DT_STRING}),
                      {x, x, Int32s({1, 2, 3, 4, 5}), Strings({"ab"}, {})}, device);
    EXPECT_EQ(::testing::internal::GetCapturedStderr(), "msg: [[1.5 2][3...]...][1 2 3...][ab]\n");
    ExpectTensorEqual(y, x);
  }
}

TEST(PrintOpTest, FirstNLimitsOutputAcrossRuns) {
  auto node = Print({DT_INT32}, 1);
  auto kernel = KernelRegistry::Global().CreateKernel(node, DeviceType::kCpu);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  std::string captured;
  for (int run = 0; run < 3; ++run) {
    OpKernelContext::Params params;
    params.node_name = &node.name();
    params.inputs = {Iota<float>({1}), AsTensor<int32_t>({run}, {})};
    params.num_outputs = 1;
    OpKernelContext c(std::move(params));
    ::testing::internal::CaptureStderr();
    ASSERT_TRUE((*kernel)->Compute(&c).ok());
    captured += ::testing::internal::GetCapturedStderr();
  }
  EXPECT_EQ(captured, "msg: [0]\n");
}

TEST(PrintV2OpTest, WritesTheStringWithEnd) {
  auto node = NodeBuilder("PrintV2").Attr("output_stream", "stderr").Attr("end", "!\n").Build();
  ::testing::internal::CaptureStderr();
  auto out = RunKernel(node, {Strings({"hello"}, {})});
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "hello!\n");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(out->empty());
  ExpectInvalidArgument(node, {Strings({"a", "b"}, {2})}, "Input is expected to be scalar");
  auto file =
      NodeBuilder("PrintV2").Attr("output_stream", "file:///tmp/x").Attr("end", "\n").Build();
  EXPECT_EQ(RunKernel(file, {Strings({"x"}, {})}).status().code(),
            absl::StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace testing
}  // namespace tensord
