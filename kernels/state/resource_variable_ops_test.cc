#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kernels/testing/kernel_test_util.h"
#include "runtime/framework/resource.h"

namespace tensord {
namespace testing {
namespace {

using ::testing::HasSubstr;

// RunKernel shares one ResourceMgr across the process, so each test uses its own names.
Tensor Handle(const std::string& shared_name, DataType dtype,
              const std::string& node_name = "VarHandleOp") {
  auto out = RunKernel(NodeBuilder("VarHandleOp", node_name)
                           .Attr("container", "")
                           .Attr("shared_name", shared_name)
                           .Attr("dtype", dtype)
                           .ShapeAttr("shape", {-1})
                           .Build(),
                       {});
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? (*out)[0] : Tensor();
}

absl::Status Assign(const Tensor& handle, const Tensor& value, bool validate_shape = false) {
  return RunKernel(NodeBuilder("AssignVariableOp")
                       .Attr("dtype", value.dtype())
                       .Attr("validate_shape", validate_shape)
                       .Build(),
                   {handle, value})
      .status();
}

absl::StatusOr<Tensor> Read(const Tensor& handle, DataType dtype) {
  auto out = RunKernel(NodeBuilder("ReadVariableOp").Attr("dtype", dtype).Build(), {handle});
  if (!out.ok()) return out.status();
  return (*out)[0];
}

absl::Status Update(const std::string& op, const Tensor& handle, const Tensor& value) {
  return RunKernel(NodeBuilder(op).Attr("dtype", value.dtype()).Build(), {handle, value}).status();
}

bool IsInitialized(const Tensor& handle) {
  auto out = RunKernel(NodeBuilder("VarIsInitializedOp").Build(), {handle});
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() && (*out)[0].scalar<bool>();
}

TEST(VarHandleOpTest, HandleNamesTheSharedVariable) {
  const Tensor h = Handle("rv/dense/kernel", DT_FLOAT);
  ASSERT_EQ(h.dtype(), DT_RESOURCE);
  ASSERT_EQ(h.dims(), 0);
  EXPECT_EQ(h.scalar<ResourceHandle>().name(), "rv/dense/kernel");
  EXPECT_EQ(h.scalar<ResourceHandle>().resource(),
            Handle("rv/dense/kernel", DT_FLOAT, "other_node").scalar<ResourceHandle>().resource());
  // Empty shared_name: the node name.
  const Tensor by_node = Handle("", DT_FLOAT, "rv/by_node_name");
  EXPECT_EQ(by_node.scalar<ResourceHandle>().name(), "rv/by_node_name");
  EXPECT_EQ(by_node.scalar<ResourceHandle>().resource(),
            Handle("rv/by_node_name", DT_FLOAT).scalar<ResourceHandle>().resource());
  // The same variable with another dtype.
  auto clash = RunKernel(NodeBuilder("VarHandleOp")
                             .Attr("container", "")
                             .Attr("shared_name", "rv/dense/kernel")
                             .Attr("dtype", DT_INT32)
                             .ShapeAttr("shape", {})
                             .Build(),
                         {});
  EXPECT_EQ(clash.status().code(), absl::StatusCode::kInvalidArgument);
}

// Variables are host-side state: registered for the CPU only.
TEST(ResourceVariableTest, AssignReadAndInitialization) {
  const Tensor h = Handle("rv/assign_read", DT_FLOAT);
  EXPECT_FALSE(IsInitialized(h));
  auto uninit = Read(h, DT_FLOAT);
  EXPECT_EQ(uninit.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(uninit.status().message(), HasSubstr("rv/assign_read"));

  ASSERT_TRUE(Assign(h, AsTensor<float>({0.5f, 2.0f}, {2})).ok());
  EXPECT_TRUE(IsInitialized(h));
  ExpectTensorEqual(*Read(h, DT_FLOAT), AsTensor<float>({0.5f, 2.0f}, {2}));
  // validate_shape defaults to false: the shape may change.
  ASSERT_TRUE(Assign(h, Tensor::Scalar<float>(3.0f)).ok());
  ExpectTensorEqual(*Read(h, DT_FLOAT), Tensor::Scalar<float>(3.0f));
}

TEST(ResourceVariableTest, StringVariable) {
  // TF2 exports keep asset paths in string variables.
  const Tensor h = Handle("rv/asset_path", DT_STRING);
  ASSERT_TRUE(Assign(h, Tensor::Scalar<std::string>("/models/x/assets/foo.txt")).ok());
  ExpectTensorEqual(*Read(h, DT_STRING), Tensor::Scalar<std::string>("/models/x/assets/foo.txt"));
}

TEST(ResourceVariableTest, DtypeAndShapeErrors) {
  const Tensor h = Handle("rv/errors", DT_FLOAT);
  ASSERT_TRUE(Assign(h, AsTensor<float>({1, 2}, {2})).ok());

  auto read = Read(h, DT_INT32);
  EXPECT_EQ(read.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(read.status().message(), HasSubstr("wrong dtype. Expected float got int32"));

  auto assign_dtype = Assign(h, AsTensor<int32_t>({1, 2}, {2}));
  EXPECT_EQ(assign_dtype.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(assign_dtype.message(), HasSubstr("Expected float got int32"));

  auto assign_shape = Assign(h, AsTensor<float>({1, 2, 3}, {3}), /*validate_shape=*/true);
  EXPECT_EQ(assign_shape.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(assign_shape.message(),
              HasSubstr("Trying to assign to variable with tensor with wrong shape. Expected [2] "
                        "got [3]"));

  auto add_shape = Update("AssignAddVariableOp", h, AsTensor<float>({1, 2, 3}, {3}));
  EXPECT_EQ(add_shape.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(add_shape.message(),
              HasSubstr("with shape [2] using a Tensor with shape [3], shapes must be equal."));
  ExpectTensorEqual(*Read(h, DT_FLOAT), AsTensor<float>({1, 2}, {2}));

  // Not a handle at all, and a handle without a resource behind it.
  EXPECT_EQ(Read(Tensor::Scalar<float>(1), DT_FLOAT).status().code(),
            absl::StatusCode::kInvalidArgument);
  const Tensor empty_handle(DT_RESOURCE, TensorShape{});
  EXPECT_EQ(Read(empty_handle, DT_FLOAT).status().code(), absl::StatusCode::kNotFound);
  EXPECT_FALSE(IsInitialized(empty_handle));
}

TEST(ResourceVariableTest, AssignAddSubAndSnapshots) {
  const Tensor h = Handle("rv/step", DT_INT64);
  EXPECT_EQ(Update("AssignAddVariableOp", h, Tensor::Scalar<int64_t>(1)).code(),
            absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(Assign(h, AsTensor<int64_t>({5, 6}, {2})).ok());
  const Tensor snapshot = *Read(h, DT_INT64);
  ASSERT_TRUE(Update("AssignAddVariableOp", h, AsTensor<int64_t>({10, 20}, {2})).ok());
  ASSERT_TRUE(Update("AssignSubVariableOp", h, AsTensor<int64_t>({1, 100}, {2})).ok());
  ExpectTensorEqual(*Read(h, DT_INT64), AsTensor<int64_t>({14, -74}, {2}));
  // Reads are values: an earlier read does not see later updates.
  ExpectTensorEqual(snapshot, AsTensor<int64_t>({5, 6}, {2}));

  const Tensor f = Handle("rv/float_acc", DT_FLOAT);
  ASSERT_TRUE(Assign(f, AsTensor<float>({0.5f, 1.0f}, {2})).ok());
  ASSERT_TRUE(Update("AssignSubVariableOp", f, AsTensor<float>({0.25f, 3.0f}, {2})).ok());
  ExpectTensorEqual(*Read(f, DT_FLOAT), AsTensor<float>({0.25f, -2.0f}, {2}));
}

TEST(ResourceGatherTest, GathersRows) {
  const Tensor h = Handle("rv/embedding", DT_FLOAT);
  ASSERT_TRUE(Assign(h, AsTensor<float>({1, 2, 3, 4, 5, 6}, {3, 2})).ok());
  auto gather = [&](const Tensor& indices) {
    return RunKernel(NodeBuilder("ResourceGather")
                         .Attr("dtype", DT_FLOAT)
                         .Attr("Tindices", indices.dtype())
                         .Attr("batch_dims", 0)
                         .Attr("validate_indices", true)
                         .Build(),
                     {h, indices});
  };
  // Reference values from TensorFlow (tf.raw_ops.ResourceGather).
  auto out = gather(AsTensor<int32_t>({2, 0, 1, 2}, {2, 2}));
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], AsTensor<float>({5, 6, 1, 2, 3, 4, 5, 6}, {2, 2, 2}));
  out = gather(AsTensor<int64_t>({1}, {1}));
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], AsTensor<float>({3, 4}, {1, 2}));
  out = gather(Tensor::Scalar<int32_t>(2));
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], AsTensor<float>({5, 6}, {2}));
  out = gather(Tensor(DT_INT32, TensorShape{0}));
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], Tensor(DT_FLOAT, TensorShape{0, 2}));

  auto bad = gather(AsTensor<int32_t>({2, 0, 1, 3}, {2, 2}));
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("indices[1,1] = 3 is not in [0, 3)"));
  EXPECT_EQ(gather(AsTensor<int32_t>({-1}, {1})).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(ResourceGatherTest, StringsScalarsAndBatchDims) {
  const Tensor vocab = Handle("rv/vocab", DT_STRING);
  ASSERT_TRUE(Assign(vocab, AsTensor<std::string>({"a", "bb", "ccc"}, {3})).ok());
  auto node = [](DataType dtype, int batch_dims) {
    return NodeBuilder("ResourceGather")
        .Attr("dtype", dtype)
        .Attr("Tindices", DT_INT64)
        .Attr("batch_dims", batch_dims)
        .Attr("validate_indices", true)
        .Build();
  };
  auto out = RunKernel(node(DT_STRING, 0), {vocab, AsTensor<int64_t>({2, 2, 0}, {3})});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], AsTensor<std::string>({"ccc", "ccc", "a"}, {3}));

  const Tensor scalar = Handle("rv/scalar_for_gather", DT_FLOAT);
  ASSERT_TRUE(Assign(scalar, Tensor::Scalar<float>(3)).ok());
  auto rank0 = RunKernel(node(DT_FLOAT, 0), {scalar, AsTensor<int64_t>({0}, {1})});
  EXPECT_EQ(rank0.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(rank0.status().message(), HasSubstr("params must be at least 1 dimensional"));

  EXPECT_EQ(RunKernel(node(DT_STRING, 1), {vocab, AsTensor<int64_t>({0}, {1})}).status().code(),
            absl::StatusCode::kUnimplemented);
}

TEST(DestroyResourceOpTest, IsANoOp) {
  const Tensor h = Handle("rv/destroyed", DT_FLOAT);
  auto out =
      RunKernel(NodeBuilder("DestroyResourceOp").Attr("ignore_lookup_error", true).Build(), {h});
  EXPECT_TRUE(out.ok()) << out.status();
}

}  // namespace
}  // namespace testing
}  // namespace tensord
