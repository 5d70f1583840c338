#include <algorithm>
#include <memory>
#include <iterator>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kernels/testing/kernel_test_util.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/framework/resource.h"
#include "runtime/framework/tensor_eigen.h"

namespace tensord {
namespace testing {
namespace {

using ::testing::HasSubstr;

struct Outputs {
  std::vector<Tensor> values;
  std::vector<std::shared_ptr<Var>> refs;
};

// RunKernel cannot pass reference inputs, so ref ops run here the way the executor calls them:
// input i arrives as input_ref(i) exactly when the kernel declares RefInput(i).
absl::StatusOr<Outputs> RunRef(const ::tensorflow::NodeDef& node, std::vector<Tensor> inputs,
                               std::vector<std::shared_ptr<Var>> refs = {}) {
  static CpuDevice* cpu = new CpuDevice(CpuDevice::Options{2});
  static ResourceMgr* resources = new ResourceMgr();
  auto registration = KernelRegistry::Global().Find(node, DeviceType::kCpu);
  if (!registration.ok()) return registration.status();
  for (size_t i = 0; i < refs.size(); ++i) {
    EXPECT_EQ((*registration)->def.ref_inputs().count(i), refs[i] != nullptr ? 1u : 0u)
        << node.op() << " input " << i;
  }
  auto kernel = KernelRegistry::Global().CreateKernel(node, DeviceType::kCpu);
  if (!kernel.ok()) return kernel.status();
  const size_t n = std::max(inputs.size(), refs.size());
  inputs.resize(n);
  refs.resize(n);
  OpKernelContext::Params params;
  params.node_name = &node.name();
  params.inputs.assign(std::make_move_iterator(inputs.begin()),
                       std::make_move_iterator(inputs.end()));
  params.input_refs.assign(refs.begin(), refs.end());
  params.num_outputs = 1;
  params.resource_mgr = resources;
  params.eigen_cpu_device = &cpu->eigen_device();
  OpKernelContext ctx(std::move(params));
  absl::Status status = (*kernel)->Compute(&ctx);
  if (!status.ok()) return status;
  Outputs out{{ctx.outputs().begin(), ctx.outputs().end()}, {}};
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    out.refs.push_back(ctx.output_ref(i) != nullptr ? *ctx.output_ref(i) : nullptr);
  }
  return out;
}

std::shared_ptr<Var> MakeVariable(const std::string& name, DataType dtype,
                                  const std::vector<int64_t>& shape,
                                  const std::string& shared_name = "") {
  auto out = RunRef(NodeBuilder("VariableV2", name)
                        .Attr("dtype", dtype)
                        .ShapeAttr("shape", shape)
                        .Attr("container", "")
                        .Attr("shared_name", shared_name)
                        .Build(),
                    {});
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? out->refs[0] : nullptr;
}

Tensor Value(const std::shared_ptr<Var>& var) {
  auto t = var->Read("test");
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? *t : Tensor();
}

::tensorflow::NodeDef AssignNode(DataType dtype, bool validate_shape = true) {
  return NodeBuilder("Assign", "init/Assign")
      .Attr("T", dtype)
      .Attr("validate_shape", validate_shape)
      .Attr("use_locking", true)
      .Build();
}

::tensorflow::NodeDef UpdateNode(const std::string& op, DataType dtype) {
  return NodeBuilder(op, op + "_node").Attr("T", dtype).Attr("use_locking", false).Build();
}

TEST(VariableV2Test, SharedNameSelectsTheVariable) {
  auto a = MakeVariable("v1", DT_FLOAT, {2}, "shared_v");
  auto b = MakeVariable("v2", DT_FLOAT, {2}, "shared_v");
  auto c = MakeVariable("shared_v_other", DT_FLOAT, {2});
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  // An empty shared_name means the node name.
  EXPECT_EQ(MakeVariable("shared_v", DT_FLOAT, {2}), a);
  // The same name with another dtype is an error.
  auto clash = RunRef(NodeBuilder("VariableV2", "x")
                          .Attr("dtype", DT_INT32)
                          .ShapeAttr("shape", {2})
                          .Attr("container", "")
                          .Attr("shared_name", "shared_v")
                          .Build(),
                      {});
  EXPECT_EQ(clash.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(VariableV2Test, UninitializedUntilAssigned) {
  auto var = MakeVariable("counter_a", DT_FLOAT, {});
  ASSERT_NE(var, nullptr);
  const auto is_init = NodeBuilder("IsVariableInitialized").Attr("dtype", DT_FLOAT).Build();
  auto before = RunRef(is_init, {}, {var});
  ASSERT_TRUE(before.ok()) << before.status();
  ExpectTensorEqual(before->values[0], Tensor::Scalar<bool>(false));

  // Reading it back (what RunKernel and the executor do with a ref output) fails, naming it.
  auto read = RunKernel(NodeBuilder("VariableV2", "counter_a")
                            .Attr("dtype", DT_FLOAT)
                            .ShapeAttr("shape", {})
                            .Attr("container", "")
                            .Attr("shared_name", "")
                            .Build(),
                        {});
  EXPECT_EQ(read.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(read.status().message(), HasSubstr("uninitialized value counter_a"));

  auto assigned = RunRef(AssignNode(DT_FLOAT), {Tensor(), Tensor::Scalar<float>(0.0f)}, {var});
  ASSERT_TRUE(assigned.ok()) << assigned.status();
  EXPECT_EQ(assigned->refs[0], var);  // output_ref forwards the variable
  ExpectTensorEqual(Value(var), Tensor::Scalar<float>(0.0f));
  auto after = RunRef(is_init, {}, {var});
  ASSERT_TRUE(after.ok());
  ExpectTensorEqual(after->values[0], Tensor::Scalar<bool>(true));
}

TEST(VariableV2Test, OldVariableOpAndPartialShapes) {
  auto old = RunRef(NodeBuilder("Variable", "old_style")
                        .Attr("dtype", DT_INT32)
                        .ShapeAttr("shape", {3})
                        .Attr("container", "")
                        .Attr("shared_name", "")
                        .Build(),
                    {});
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_EQ(old->refs[0]->dtype(), DT_INT32);

  auto partial = RunRef(NodeBuilder("VariableV2", "partial")
                            .Attr("dtype", DT_FLOAT)
                            .ShapeAttr("shape", {-1, 3})
                            .Attr("container", "")
                            .Attr("shared_name", "")
                            .Build(),
                        {});
  EXPECT_EQ(partial.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(partial.status().message(), HasSubstr("Shape [?,3] is not fully defined"));
}

TEST(AssignTest, ValidateShape) {
  auto var = MakeVariable("validated", DT_FLOAT, {2});
  ASSERT_NE(var, nullptr);
  const Tensor three = AsTensor<float>({1, 2, 3}, {3});
  // Before the first assignment the declared shape counts (TensorFlow's message).
  auto bad = RunRef(AssignNode(DT_FLOAT), {Tensor(), three}, {var});
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(),
              HasSubstr("Assign requires shapes of both tensors to match. lhs shape= [2] rhs "
                        "shape= [3]"));
  EXPECT_FALSE(var->initialized());

  ASSERT_TRUE(RunRef(AssignNode(DT_FLOAT), {Tensor(), AsTensor<float>({4, 5}, {2})}, {var}).ok());
  ExpectTensorEqual(Value(var), AsTensor<float>({4, 5}, {2}));
  EXPECT_FALSE(RunRef(AssignNode(DT_FLOAT), {Tensor(), three}, {var}).ok());
  // validate_shape=false replaces the value whatever its shape.
  ASSERT_TRUE(RunRef(AssignNode(DT_FLOAT, false), {Tensor(), three}, {var}).ok());
  ExpectTensorEqual(Value(var), three);

  // An unknown declared rank behaves like a scalar in TensorFlow.
  ::tensorflow::NodeDef node = NodeBuilder("VariableV2", "unknown_rank")
                                   .Attr("dtype", DT_FLOAT)
                                   .Attr("container", "")
                                   .Attr("shared_name", "")
                                   .Build();
  (*node.mutable_attr())["shape"].mutable_shape()->set_unknown_rank(true);
  auto unknown_var = RunRef(node, {});
  ASSERT_TRUE(unknown_var.ok()) << unknown_var.status();
  EXPECT_THAT(
      RunRef(AssignNode(DT_FLOAT), {Tensor(), three}, {unknown_var->refs[0]}).status().message(),
      HasSubstr("lhs shape= [] rhs shape= [3]"));
  EXPECT_TRUE(RunRef(AssignNode(DT_FLOAT, false), {Tensor(), three}, {unknown_var->refs[0]}).ok());
}

TEST(AssignTest, Errors) {
  auto var = MakeVariable("typed", DT_FLOAT, {});
  ASSERT_NE(var, nullptr);
  auto wrong_dtype = RunRef(AssignNode(DT_INT32), {Tensor(), Tensor::Scalar<int32_t>(1)}, {var});
  EXPECT_EQ(wrong_dtype.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(wrong_dtype.status().message(), HasSubstr("typed"));
  // A value instead of a reference (as RunKernel passes it).
  auto not_ref =
      RunKernel(AssignNode(DT_FLOAT), {Tensor::Scalar<float>(1), Tensor::Scalar<float>(2)});
  EXPECT_EQ(not_ref.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(not_ref.status().message(), HasSubstr("must be a reference"));
}

TEST(AssignAddTest, CounterSemantics) {
  // saved_model_counter: incr, incr, incr_by 3, reset -> 1, 2, 5, 0.
  auto var = MakeVariable("counter", DT_FLOAT, {});
  ASSERT_NE(var, nullptr);
  ASSERT_TRUE(RunRef(AssignNode(DT_FLOAT), {Tensor(), Tensor::Scalar<float>(0)}, {var}).ok());
  const auto add = UpdateNode("AssignAdd", DT_FLOAT);
  for (float delta : {1.0f, 1.0f, 3.0f}) {
    auto out = RunRef(add, {Tensor(), Tensor::Scalar<float>(delta)}, {var});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(out->refs[0], var);
  }
  ExpectTensorEqual(Value(var), Tensor::Scalar<float>(5.0f));
  ASSERT_TRUE(RunRef(AssignNode(DT_FLOAT), {Tensor(), Tensor::Scalar<float>(0)}, {var}).ok());
  ExpectTensorEqual(Value(var), Tensor::Scalar<float>(0.0f));
}

TEST(AssignAddTest, DtypesAndCopyOnWrite) {
  auto var = MakeVariable("vec64", DT_INT64, {3});
  ASSERT_NE(var, nullptr);
  ASSERT_TRUE(
      RunRef(AssignNode(DT_INT64), {Tensor(), AsTensor<int64_t>({1, 2, 3}, {3})}, {var}).ok());
  const Tensor before = Value(var);  // a reader still holds the old value
  ASSERT_TRUE(RunRef(UpdateNode("AssignSub", DT_INT64),
                     {Tensor(), AsTensor<int64_t>({10, 20, int64_t{1} << 40}, {3})}, {var})
                  .ok());
  ExpectTensorEqual(Value(var), AsTensor<int64_t>({-9, -18, 3 - (int64_t{1} << 40)}, {3}));
  ExpectTensorEqual(before, AsTensor<int64_t>({1, 2, 3}, {3}));

  auto half = MakeVariable("half_var", DT_HALF, {2});
  ASSERT_TRUE(RunRef(AssignNode(DT_HALF),
                     {Tensor(), AsTensor<Eigen::half>({Eigen::half(1.5f), Eigen::half(-2)}, {2})},
                     {half})
                  .ok());
  ASSERT_TRUE(RunRef(UpdateNode("AssignAdd", DT_HALF),
                     {Tensor(), AsTensor<Eigen::half>({Eigen::half(0.25f), Eigen::half(4)}, {2})},
                     {half})
                  .ok());
  ExpectTensorEqual(Value(half), AsTensor<Eigen::half>({Eigen::half(1.75f), Eigen::half(2)}, {2}));
}

TEST(AssignAddTest, Errors) {
  auto var = MakeVariable("never_set", DT_FLOAT, {2});
  ASSERT_NE(var, nullptr);
  const auto add = UpdateNode("AssignAdd", DT_FLOAT);
  auto uninit = RunRef(add, {Tensor(), AsTensor<float>({1, 2}, {2})}, {var});
  EXPECT_EQ(uninit.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(uninit.status().message(), HasSubstr("uninitialized value never_set"));

  ASSERT_TRUE(RunRef(AssignNode(DT_FLOAT), {Tensor(), AsTensor<float>({1, 2}, {2})}, {var}).ok());
  // No broadcasting: shapes must be equal.
  auto shape = RunRef(add, {Tensor(), Tensor::Scalar<float>(1)}, {var});
  EXPECT_EQ(shape.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(shape.status().message(), HasSubstr("shapes must be equal"));
  ExpectTensorEqual(Value(var), AsTensor<float>({1, 2}, {2}));

  // T must match the variable.
  auto dtype =
      RunRef(UpdateNode("AssignAdd", DT_INT32), {Tensor(), AsTensor<int32_t>({1, 2}, {2})}, {var});
  EXPECT_EQ(dtype.status().code(), absl::StatusCode::kInvalidArgument);
  // Bool has no AssignAdd kernel.
  EXPECT_EQ(RunRef(UpdateNode("AssignAdd", DT_BOOL), {}).status().code(),
            absl::StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace testing
}  // namespace tensord
