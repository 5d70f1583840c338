#include <string>

#include "gtest/gtest.h"
#include "kernels/testing/kernel_test_util.h"

namespace tensord {
namespace string_ops {
namespace {

using testing::AsTensor;
using testing::ExpectTensorEqual;
using testing::NodeBuilder;
using testing::RunKernel;
using testing::TestDevices;

Tensor Str(const std::vector<std::string>& v, const std::vector<int64_t>& dims) {
  return AsTensor<std::string>(v, dims);
}

absl::StatusOr<std::vector<Tensor>> RunOp(const Tensor& in, const Tensor& axes, bool keep_dims,
                                          const std::string& separator,
                                          DeviceType device = DeviceType::kCpu) {
  auto node =
      NodeBuilder("ReduceJoin").Attr("keep_dims", keep_dims).Attr("separator", separator).Build();
  return RunKernel(node, {in, axes}, device);
}

void Expect(const absl::StatusOr<std::vector<Tensor>>& out, const Tensor& want) {
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], want);
}

// Expected values from TensorFlow 2.21 (tf.raw_ops.ReduceJoin).
TEST(ReduceJoinTest, Matrix) {
  const Tensor m = Str({"a", "b", "c", "d"}, {2, 2});
  for (DeviceType device : TestDevices()) {
    Expect(RunOp(m, AsTensor<int32_t>({0}, {}), false, "-", device), Str({"a-c", "b-d"}, {2}));
  }
  Expect(RunOp(m, AsTensor<int32_t>({-1}, {}), true, "-"), Str({"a-b", "c-d"}, {2, 1}));
  Expect(RunOp(m, AsTensor<int32_t>({0, 1}, {2}), false, "-"), Str({"a-c-b-d"}, {}));
  Expect(RunOp(m, AsTensor<int32_t>({1, 0}, {2}), false, "-"), Str({"a-b-c-d"}, {}));
  Expect(RunOp(m, AsTensor<int32_t>({-1, 0}, {2}), true, "-"), Str({"a-b-c-d"}, {1, 1}));
  Expect(RunOp(m, AsTensor<int32_t>({}, {0}), false, ""), m);
}

TEST(ReduceJoinTest, Rank3) {
  const Tensor m3 = Str({"a", "b", "c", "d", "e", "f", "g", "h"}, {2, 2, 2});
  Expect(RunOp(m3, AsTensor<int32_t>({0, 2}, {2}), false, "."), Str({"a.e.b.f", "c.g.d.h"}, {2}));
  Expect(RunOp(m3, AsTensor<int32_t>({2, 0}, {2}), false, "."), Str({"a.b.e.f", "c.d.g.h"}, {2}));
  Expect(RunOp(m3, AsTensor<int32_t>({-3}, {}), false, "."),
         Str({"a.e", "b.f", "c.g", "d.h"}, {2, 2}));
  Expect(RunOp(m3, AsTensor<int32_t>({0}, {1, 1}), false, "."),
         Str({"a.e", "b.f", "c.g", "d.h"}, {2, 2}));
}

TEST(ReduceJoinTest, EmptyAndScalar) {
  Expect(RunOp(Str({}, {2, 0}), AsTensor<int32_t>({1}, {}), false, ","), Str({"", ""}, {2}));
  Expect(RunOp(Str({}, {0, 2}), AsTensor<int32_t>({1}, {}), false, ","), Str({}, {0}));
  Expect(RunOp(Str({"x"}, {}), AsTensor<int32_t>({}, {0}), false, ","), Str({"x"}, {}));
}

TEST(ReduceJoinTest, Errors) {
  const Tensor m = Str({"a", "b", "c", "d"}, {2, 2});
  auto out = RunOp(m, AsTensor<int32_t>({2}, {}), false, "");
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_NE(out.status().message().find("Invalid reduction dimension 2 for input with 2 "
                                        "dimension(s)"),
            std::string::npos);
  out = RunOp(m, AsTensor<int32_t>({0, -2}, {2}), false, "");
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(out.status().message().find("Duplicate reduction dimension"), std::string::npos);
}

}  // namespace
}  // namespace string_ops
}  // namespace tensord
