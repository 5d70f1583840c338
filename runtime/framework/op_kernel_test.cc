// OpKernelConstruction's function instantiation: what control-flow kernels see of the executor.
#include "runtime/framework/op_kernel.h"

#include "gtest/gtest.h"

namespace tensord {
namespace {

// A function that appends its number to the first argument's value: enough to tell which one
// a kernel got.
class NumberedFunction : public Function {
 public:
  explicit NumberedFunction(float number) : number_(number) {}
  int num_args() const override { return 1; }
  int num_results() const override { return 1; }
  absl::StatusOr<std::vector<Tensor>> Run(OpKernelContext*,
                                          std::vector<Tensor> args) const override {
    Tensor out(DT_FLOAT, TensorShape({}));
    out.data<float>()[0] = args.at(0).data<float>()[0] + number_;
    return std::vector<Tensor>{out};
  }

 private:
  float number_;
};

// Gives as many functions as the attr's name has characters, numbered from 1, and records
// which node asked.
class CountingLibrary : public FunctionLibrary {
 public:
  absl::StatusOr<std::vector<std::unique_ptr<Function>>> Instantiate(
      OpKernelConstruction* c, const std::string& attr) const override {
    asked_by_ = c->name();
    std::vector<std::unique_ptr<Function>> functions;
    for (size_t i = 0; i < attr.size(); ++i) {
      functions.push_back(std::make_unique<NumberedFunction>(static_cast<float>(i + 1)));
    }
    return functions;
  }
  mutable std::string asked_by_;
};

::tensorflow::NodeDef IfNode() {
  ::tensorflow::NodeDef node;
  node.set_name("branchy");
  node.set_op("If");
  return node;
}

TEST(OpKernelConstructionTest, FunctionsComeFromTheLibraryTheBuilderGives) {
  const ::tensorflow::NodeDef node = IfNode();
  CountingLibrary library;
  OpKernelConstruction c(node, DeviceType::kCpu, &library);
  auto functions = c.InstantiateFunctions("abc");
  ASSERT_TRUE(functions.ok()) << functions.status();
  ASSERT_EQ(functions->size(), 3u);
  EXPECT_EQ(library.asked_by_, "branchy");
  Tensor arg(DT_FLOAT, TensorShape({}));
  arg.data<float>()[0] = 10.0f;
  OpKernelContext::Params params;
  params.node_name = &node.name();
  OpKernelContext ctx(std::move(params));
  auto results = (*functions)[2]->Run(&ctx, {arg});
  ASSERT_TRUE(results.ok()) << results.status();
  EXPECT_EQ((*results)[0].data<float>()[0], 13.0f);
}

TEST(OpKernelConstructionTest, FunctionsWithoutALibraryFailNamingTheNode) {
  const ::tensorflow::NodeDef node = IfNode();
  OpKernelConstruction c(node, DeviceType::kCpu);
  auto functions = c.InstantiateFunctions("then_branch");
  ASSERT_FALSE(functions.ok());
  EXPECT_EQ(functions.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(functions.status().message(),
            "node 'branchy' (If) runs functions, which needs an executor");
}

}  // namespace
}  // namespace tensord
