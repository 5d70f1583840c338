// Expected outputs and error messages come from TensorFlow 2.21 (tf.raw_ops.ParseExample,
// ParseExampleV2, ParseSingleExample) on the same examples.
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "gtest/gtest.h"
#include "kernels/testing/kernel_test_util.h"
#include "protos/tensorflow/example.pb.h"

namespace tensord {
namespace string_ops {
namespace {

using testing::AsTensor;
using testing::ExpectTensorEqual;
using testing::NodeBuilder;
using testing::RunKernel;
using testing::TestDevices;

// ---- building examples ----

struct FeatureValue {
  enum Kind { kNone, kFloat, kInt64, kBytes } kind = kNone;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> bytes;
};
FeatureValue Floats(std::vector<float> v) { return {FeatureValue::kFloat, std::move(v), {}, {}}; }
FeatureValue Ints(std::vector<int64_t> v) { return {FeatureValue::kInt64, {}, std::move(v), {}}; }
FeatureValue Bytes(std::vector<std::string> v) {
  return {FeatureValue::kBytes, {}, {}, std::move(v)};
}
FeatureValue Unset() { return {}; }

std::string Serialize(const std::vector<std::pair<std::string, FeatureValue>>& features) {
  ::tensorflow::Example example;
  auto& map = *example.mutable_features()->mutable_feature();
  for (const auto& [key, value] : features) {
    ::tensorflow::Feature& f = map[key];
    switch (value.kind) {
      case FeatureValue::kFloat:
        f.mutable_float_list()->mutable_value()->Add(value.floats.begin(), value.floats.end());
        break;
      case FeatureValue::kInt64:
        f.mutable_int64_list()->mutable_value()->Add(value.ints.begin(), value.ints.end());
        break;
      case FeatureValue::kBytes:
        for (const auto& b : value.bytes) f.mutable_bytes_list()->add_value(b);
        break;
      case FeatureValue::kNone:
        break;
    }
  }
  return example.SerializeAsString();
}

Tensor Strings(const std::vector<std::string>& v) {
  return AsTensor<std::string>(v, {static_cast<int64_t>(v.size())});
}
Tensor Scalar(const std::string& s) { return AsTensor<std::string>({s}, {}); }
Tensor NoDefault(DataType dtype) { return Tensor(dtype, TensorShape{0}); }

// ex0 = {x: [1.5], ids: [3, 4, 5], w: ["a"]}, ex1 = {ids: [7], w: ["bb", "c"]}.
std::string Ex0() {
  return Serialize({{"x", Floats({1.5f})}, {"ids", Ints({3, 4, 5})}, {"w", Bytes({"a"})}});
}
std::string Ex1() { return Serialize({{"ids", Ints({7})}, {"w", Bytes({"bb", "c"})}}); }

// ---- building nodes ----

void AddShapes(::tensorflow::NodeDef* node, const std::vector<std::vector<int64_t>>& shapes) {
  auto* list = (*node->mutable_attr())["dense_shapes"].mutable_list();
  for (const auto& dims : shapes) {
    auto* shape = list->add_shape();
    for (int64_t d : dims) shape->add_dim()->set_size(d);
  }
}

::tensorflow::NodeDef ParseExampleNode(const std::vector<DataType>& sparse_types,
                                       const std::vector<DataType>& dense_types,
                                       const std::vector<std::vector<int64_t>>& dense_shapes) {
  auto node = NodeBuilder("ParseExample")
                  .Attr("Nsparse", static_cast<int64_t>(sparse_types.size()))
                  .Attr("Ndense", static_cast<int64_t>(dense_types.size()))
                  .Attr("sparse_types", sparse_types)
                  .Attr("Tdense", dense_types)
                  .Build();
  AddShapes(&node, dense_shapes);
  return node;
}

::tensorflow::NodeDef ParseExampleV2Node(const std::vector<DataType>& sparse_types,
                                         const std::vector<DataType>& dense_types,
                                         const std::vector<std::vector<int64_t>>& dense_shapes,
                                         const std::vector<DataType>& ragged_value_types,
                                         const std::vector<DataType>& ragged_split_types) {
  auto node = NodeBuilder("ParseExampleV2")
                  .Attr("num_sparse", static_cast<int64_t>(sparse_types.size()))
                  .Attr("sparse_types", sparse_types)
                  .Attr("Tdense", dense_types)
                  .Attr("ragged_value_types", ragged_value_types)
                  .Attr("ragged_split_types", ragged_split_types)
                  .Build();
  AddShapes(&node, dense_shapes);
  return node;
}

// ParseExample's inputs: serialized, names, sparse keys, dense keys, dense defaults.
std::vector<Tensor> V1Inputs(const Tensor& serialized, const Tensor& names,
                             const std::vector<std::string>& sparse_keys,
                             const std::vector<std::string>& dense_keys,
                             const std::vector<Tensor>& defaults) {
  std::vector<Tensor> inputs = {serialized, names};
  for (const auto& k : sparse_keys) inputs.push_back(Scalar(k));
  for (const auto& k : dense_keys) inputs.push_back(Scalar(k));
  inputs.insert(inputs.end(), defaults.begin(), defaults.end());
  return inputs;
}

std::vector<Tensor> V2Inputs(const Tensor& serialized, const std::vector<std::string>& sparse_keys,
                             const std::vector<std::string>& dense_keys,
                             const std::vector<std::string>& ragged_keys,
                             const std::vector<Tensor>& defaults) {
  std::vector<Tensor> inputs = {serialized, Strings({}), Strings(sparse_keys), Strings(dense_keys),
                                Strings(ragged_keys)};
  inputs.insert(inputs.end(), defaults.begin(), defaults.end());
  return inputs;
}

void ExpectOutputs(const absl::StatusOr<std::vector<Tensor>>& out,
                   const std::vector<Tensor>& want) {
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE("output " + std::to_string(i));
    ExpectTensorEqual((*out)[i], want[i]);
  }
}

void ExpectError(const absl::StatusOr<std::vector<Tensor>>& out, const std::string& message) {
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(out.status().message().find(message), std::string::npos) << out.status();
}

// ---- ParseExample ----

TEST(ParseExampleTest, SparseAndDense) {
  const auto node = ParseExampleNode({DT_INT64, DT_STRING}, {DT_FLOAT, DT_INT64}, {{1}, {2}});
  for (DeviceType device : TestDevices()) {
    auto out = RunKernel(node,
                         V1Inputs(Strings({Ex0(), Ex1()}), Strings({}), {"ids", "w"}, {"x", "y"},
                                  {AsTensor<float>({-1}, {1}), AsTensor<int64_t>({9, 8}, {2})}),
                         device);
    ExpectOutputs(out, {
                           AsTensor<int64_t>({0, 0, 0, 1, 0, 2, 1, 0}, {4, 2}),
                           AsTensor<int64_t>({0, 0, 1, 0, 1, 1}, {3, 2}),
                           AsTensor<int64_t>({3, 4, 5, 7}, {4}),
                           Strings({"a", "bb", "c"}),
                           AsTensor<int64_t>({2, 3}, {2}),
                           AsTensor<int64_t>({2, 2}, {2}),
                           AsTensor<float>({1.5f, -1}, {2, 1}),
                           AsTensor<int64_t>({9, 8, 9, 8}, {2, 2}),
                       });
  }
}

TEST(ParseExampleTest, DefaultsScalarShapesAndStrings) {
  // Scalar dense shape: one value per example.
  auto node = ParseExampleNode({}, {DT_FLOAT}, {{}});
  ExpectOutputs(RunKernel(node, V1Inputs(Strings({Serialize({{"x", Floats({4})}}), Serialize({})}),
                                         Strings({}), {}, {"x"}, {AsTensor<float>({2}, {})})),
                {AsTensor<float>({4, 2}, {2})});

  // A feature with no value list set counts as missing.
  node = ParseExampleNode({DT_FLOAT}, {DT_FLOAT}, {{1}});
  ExpectOutputs(RunKernel(node, V1Inputs(Strings({Serialize({{"x", Unset()}})}), Strings({}), {"s"},
                                         {"x"}, {AsTensor<float>({2}, {1})})),
                {AsTensor<int64_t>({}, {0, 2}), AsTensor<float>({}, {0}),
                 AsTensor<int64_t>({1, 0}, {2}), AsTensor<float>({2}, {1, 1})});

  node = ParseExampleNode({}, {DT_STRING}, {{2, 1}});
  ExpectOutputs(
      RunKernel(node,
                V1Inputs(Strings({Serialize({{"w", Bytes({"p", "q"})}}), Serialize({})}),
                         Strings({}), {}, {"w"}, {AsTensor<std::string>({"d1", "d2"}, {2, 1})})),
      {AsTensor<std::string>({"p", "q", "d1", "d2"}, {2, 2, 1})});
}

TEST(ParseExampleTest, VariableLengthDense) {
  const auto node = ParseExampleNode({}, {DT_FLOAT}, {{-1, 2}});
  const Tensor serialized = Strings({Serialize({{"x", Floats({1, 2, 3, 4})}}), Serialize({}),
                                     Serialize({{"x", Floats({5, 6})}})});
  ExpectOutputs(
      RunKernel(node, V1Inputs(serialized, Strings({}), {}, {"x"}, {AsTensor<float>({-1}, {})})),
      {AsTensor<float>({1, 2, 3, 4, -1, -1, -1, -1, 5, 6, -1, -1}, {3, 2, 2})});

  ExpectError(RunKernel(node, V1Inputs(Strings({Serialize({{"x", Floats({1, 2, 3})}})}),
                                       Strings({}), {}, {"x"}, {AsTensor<float>({-1}, {})})),
              "Name: <unknown>, Key: x, Index: 0.  Number of float values is not a multiple of "
              "stride length. Saw 3 values but output shape is: [?,2]");
  ExpectError(RunKernel(node, V1Inputs(Strings({Serialize({{"x", Floats({1, 2})}})}), Strings({}),
                                       {}, {"x"}, {AsTensor<float>({1, 2}, {2})})),
              "dense_shape[0] is a variable length shape: [?,2], therefore def_value[0] must "
              "contain a single element (the padding element).  But its shape is: [2]");
}

TEST(ParseExampleTest, EmptyBatch) {
  const auto node = ParseExampleNode({DT_INT64}, {DT_FLOAT}, {{2}});
  ExpectOutputs(
      RunKernel(node, V1Inputs(Strings({}), Strings({}), {"s"}, {"x"}, {NoDefault(DT_FLOAT)})),
      {AsTensor<int64_t>({}, {0, 2}), AsTensor<int64_t>({}, {0}), AsTensor<int64_t>({0, 0}, {2}),
       AsTensor<float>({}, {0, 2})});
}

TEST(ParseExampleTest, PackedAndUnpackedEncodings) {
  // Hand-encoded Example with unpacked lists: x = float [1.5, 2.0], n = int64 [5, 150].
  const std::string unpacked = absl::HexStringToBytes(
      "0a210a110a0178120c120a0d0000c03f0d000000400a0c0a016e12071a050805089601");
  const auto node = ParseExampleNode({DT_INT64}, {DT_FLOAT}, {{2}});
  ExpectOutputs(RunKernel(node, V1Inputs(Strings({unpacked}), Strings({}), {"n"}, {"x"},
                                         {NoDefault(DT_FLOAT)})),
                {AsTensor<int64_t>({0, 0, 0, 1}, {2, 2}), AsTensor<int64_t>({5, 150}, {2}),
                 AsTensor<int64_t>({1, 2}, {2}), AsTensor<float>({1.5f, 2}, {1, 2})});
}

TEST(ParseExampleTest, DuplicateKeysLastOneWins) {
  // Two map entries for "x": [1.5, 2.0] then [1.0].
  const std::string duplicated = absl::HexStringToBytes(
      "0a210a110a0178120c120a0d0000c03f0d000000400a0c0a0178120712050d0000803f");
  const auto node = ParseExampleNode({}, {DT_FLOAT}, {{1}});
  ExpectOutputs(RunKernel(node, V1Inputs(Strings({duplicated}), Strings({}), {}, {"x"},
                                         {NoDefault(DT_FLOAT)})),
                {AsTensor<float>({1}, {1, 1})});
}

TEST(ParseExampleTest, ExampleErrors) {
  const auto node = ParseExampleNode({}, {DT_FLOAT}, {{1}});
  auto run = [&](const std::vector<std::string>& serialized, const Tensor& names) {
    return RunKernel(node, V1Inputs(Strings(serialized), names, {}, {"x"}, {NoDefault(DT_FLOAT)}));
  };
  ExpectError(run({Ex0(), Ex1()}, Strings({})),
              "Name: <unknown>, Feature: x (data type: float) is required but could not be "
              "found.");
  ExpectError(run({Ex0(), Ex1()}, Strings({"a", "b"})),
              "Name: b, Feature: x (data type: float) is required but could not be found.");
  ExpectError(run({Serialize({{"x", Unset()}})}, Strings({})),
              "Name: <unknown>, Feature: x (data type: float) is required but could not be "
              "found.");
  ExpectError(run({Serialize({{"x", Floats({1, 2})}})}, Strings({})),
              "Name: <unknown>, Key: x, Index: 0.  Number of float values != expected.  Values "
              "size: 2 but output shape: [1]");
  ExpectError(run({Serialize({{"x", Floats({})}})}, Strings({})),
              "Name: <unknown>, Key: x, Index: 0.  Number of float values != expected.  Values "
              "size: 0 but output shape: [1]");
  ExpectError(run({Serialize({{"x", Ints({1})}})}, Strings({})),
              "Name: <unknown>, Key: x, Index: 0.  Data types don't match. Data type: int64 but "
              "expected type: float");
  ExpectError(run({std::string("\n\x05"
                               "abc")},
                  Strings({})),
              "Could not parse example input, value: '\n\x05"
              "abc'");
  // The lowest failing example is reported.
  ExpectError(run({Ex0(), Serialize({{"x", Ints({1})}}), "garbage"}, Strings({})),
              "Key: x, Index: 1.");

  // Too many strings fail as a parse error (fewer are a count mismatch).
  const auto strings = ParseExampleNode({}, {DT_STRING}, {{2}});
  ExpectError(RunKernel(strings, V1Inputs(Strings({Serialize({{"w", Bytes({"a", "b", "c"})}})}),
                                          Strings({}), {}, {"w"}, {NoDefault(DT_STRING)})),
              "Name: <unknown>, Key: w, Index: 0.  Can't parse serialized Example.");
  ExpectError(RunKernel(strings, V1Inputs(Strings({Serialize({{"w", Bytes({"a"})}})}), Strings({}),
                                          {}, {"w"}, {NoDefault(DT_STRING)})),
              "Name: <unknown>, Key: w, Index: 0.  Number of bytes values != expected.  Values "
              "size: 1 but output shape: [2]");

  const auto sparse = ParseExampleNode({DT_FLOAT}, {}, {});
  ExpectError(RunKernel(sparse, V1Inputs(Strings({Serialize({{"x", Ints({1})}})}), Strings({}),
                                         {"x"}, {}, {})),
              "Name: <unknown>, Key: x, Index: 0.  Data types don't match. Expected type: float, "
              "Actual type: int64");
}

TEST(ParseExampleTest, InputErrors) {
  const auto node = ParseExampleNode({}, {DT_FLOAT}, {{2}});
  ExpectError(
      RunKernel(node, V1Inputs(Scalar(Ex0()), Strings({}), {}, {"x"}, {NoDefault(DT_FLOAT)})),
      "Expected serialized to be a vector, got shape: []");
  ExpectError(RunKernel(node, V1Inputs(Strings({Ex0(), Ex1()}), Strings({"a"}), {}, {"x"},
                                       {AsTensor<float>({0, 0}, {2})})),
              "Expected names have the same shape as serialized: name.shape=[1], "
              "serialized.shape=[2]");
  ExpectError(RunKernel(node, V1Inputs(Strings({Ex0()}), Strings({}), {}, {"x"},
                                       {AsTensor<float>({1, 2, 3}, {3})})),
              "def_value[0].shape() == [3] is not compatible with dense_shapes_[0] == [2]");
  ExpectError(RunKernel(node, V1Inputs(Strings({Ex0()}), Strings({}), {}, {"x"},
                                       {AsTensor<int64_t>({1, 2}, {2})})),
              "dense_defaults[0].dtype() == int64 != dense_types_[0] == float");
  ExpectError(RunKernel(node, {Strings({Ex0()}), Strings({})}), "expected 4 inputs, got 2");

  auto bad_attrs = ParseExampleNode({}, {DT_FLOAT}, {{1}, {2}});
  EXPECT_FALSE(RunKernel(bad_attrs,
                         V1Inputs(Strings({Ex0()}), Strings({}), {}, {"x"}, {NoDefault(DT_FLOAT)}))
                   .ok());
  auto bad_type = ParseExampleNode({}, {DT_INT32}, {{1}});
  EXPECT_FALSE(
      RunKernel(bad_type, V1Inputs(Strings({Ex0()}), Strings({}), {}, {"x"}, {NoDefault(DT_INT32)}))
          .ok());
}

// ---- ParseExampleV2 ----

TEST(ParseExampleV2Test, BatchWithRagged) {
  const auto node =
      ParseExampleV2Node({DT_INT64}, {DT_FLOAT, DT_INT64}, {{1}, {2}}, {DT_STRING}, {DT_INT32});
  for (DeviceType device : TestDevices()) {
    auto out = RunKernel(node,
                         V2Inputs(Strings({Ex0(), Ex1()}), {"ids"}, {"x", "y"}, {"w"},
                                  {AsTensor<float>({-1}, {1}), AsTensor<int64_t>({9, 8}, {2})}),
                         device);
    ExpectOutputs(out, {
                           AsTensor<int64_t>({0, 0, 0, 1, 0, 2, 1, 0}, {4, 2}),
                           AsTensor<int64_t>({3, 4, 5, 7}, {4}),
                           AsTensor<int64_t>({2, 3}, {2}),
                           AsTensor<float>({1.5f, -1}, {2, 1}),
                           AsTensor<int64_t>({9, 8, 9, 8}, {2, 2}),
                           Strings({"a", "bb", "c"}),
                           AsTensor<int32_t>({0, 1, 3}, {3}),
                       });
  }
}

TEST(ParseExampleV2Test, ScalarInput) {
  const auto node =
      ParseExampleV2Node({DT_INT64}, {DT_FLOAT, DT_INT64}, {{1}, {2}}, {DT_STRING}, {DT_INT64});
  ExpectOutputs(
      RunKernel(node, V2Inputs(Scalar(Ex0()), {"ids"}, {"x", "y"}, {"w"},
                               {AsTensor<float>({-1}, {1}), AsTensor<int64_t>({9, 8}, {2})})),
      {
          AsTensor<int64_t>({0, 1, 2}, {3, 1}),
          AsTensor<int64_t>({3, 4, 5}, {3}),
          AsTensor<int64_t>({3}, {1}),
          AsTensor<float>({1.5f}, {1}),
          AsTensor<int64_t>({9, 8}, {2}),
          Strings({"a"}),
          AsTensor<int64_t>({}, {0}),
      });

  // Missing features: empty sparse and ragged, the dense default.
  const auto missing = ParseExampleV2Node({DT_INT64}, {DT_INT64}, {{2}}, {DT_STRING}, {DT_INT64});
  ExpectOutputs(RunKernel(missing, V2Inputs(Scalar(Ex1()), {"q"}, {"y"}, {"q"},
                                            {AsTensor<int64_t>({1, 2}, {2})})),
                {
                    AsTensor<int64_t>({}, {0, 1}),
                    AsTensor<int64_t>({}, {0}),
                    AsTensor<int64_t>({0}, {1}),
                    AsTensor<int64_t>({1, 2}, {2}),
                    Strings({}),
                    AsTensor<int64_t>({}, {0}),
                });

  // Variable length: exactly the example's rows; missing gives zero rows.
  const auto varlen = ParseExampleV2Node({}, {DT_INT64, DT_INT64}, {{-1, 2}, {-1}}, {}, {});
  ExpectOutputs(
      RunKernel(varlen, V2Inputs(Scalar(Serialize({{"x", Ints({1, 2, 3, 4})}})), {}, {"x", "z"}, {},
                                 {AsTensor<int64_t>({0}, {}), AsTensor<int64_t>({7}, {})})),
      {AsTensor<int64_t>({1, 2, 3, 4}, {2, 2}), AsTensor<int64_t>({}, {0})});
}

TEST(ParseExampleV2Test, ScalarInputErrors) {
  const auto dense = ParseExampleV2Node({}, {DT_FLOAT}, {{1}}, {}, {});
  ExpectError(RunKernel(dense, V2Inputs(Scalar(Ex1()), {}, {"x"}, {}, {NoDefault(DT_FLOAT)})),
              "Feature: x (data type: float) is required but could not be found.");
  ExpectError(RunKernel(dense, V2Inputs(Scalar(Serialize({{"x", Floats({1, 2})}})), {}, {"x"}, {},
                                        {NoDefault(DT_FLOAT)})),
              "Key: x.  Can't parse serialized Example: Some float_list slice was not parsed.");
  const auto dense3 = ParseExampleV2Node({}, {DT_INT64}, {{3}}, {}, {});
  ExpectError(RunKernel(dense3, V2Inputs(Scalar(Serialize({{"x", Floats({1, 2})}})), {}, {"x"}, {},
                                         {NoDefault(DT_INT64)})),
              "Key: x.  Data types don't match. Data type: float but expected type: int64");
  ExpectError(RunKernel(dense3, V2Inputs(Scalar(std::string("\n\x05"
                                                            "abc")),
                                         {}, {"x"}, {}, {NoDefault(DT_INT64)})),
              "Could not parse example input, value: '\n\x05"
              "abc'");
  const auto strings = ParseExampleV2Node({}, {DT_STRING}, {{2}}, {}, {});
  ExpectError(RunKernel(strings, V2Inputs(Scalar(Serialize({{"w", Bytes({"a", "b", "c"})}})), {},
                                          {"w"}, {}, {NoDefault(DT_STRING)})),
              "Key: w.  Can't parse serialized Example: Parsing bytes_list failed.");
  const auto varlen = ParseExampleV2Node({}, {DT_INT64}, {{-1, 2}}, {}, {});
  ExpectError(RunKernel(varlen, V2Inputs(Scalar(Serialize({{"x", Ints({1, 2, 3})}})), {}, {"x"}, {},
                                         {AsTensor<int64_t>({0}, {})})),
              "Error while parsing feature with key x: number of elements should be divisible "
              "by 2, found 3 instead");
  const auto sparse = ParseExampleV2Node({DT_FLOAT}, {}, {}, {}, {});
  ExpectError(RunKernel(sparse, V2Inputs(Scalar(Serialize({{"x", Ints({1})}})), {"x"}, {}, {}, {})),
              "Key: x.  Data types don't match. Expected type: float, Actual type: int64");
}

TEST(ParseExampleV2Test, BatchErrors) {
  const auto ragged = ParseExampleV2Node({}, {}, {}, {DT_STRING}, {DT_INT32});
  ExpectError(
      RunKernel(ragged, V2Inputs(Strings({Serialize({{"x", Ints({1})}})}), {}, {}, {"x"}, {})),
      "Name: <unknown>, Key: x, Index: 0.  Data types don't match. Expected type: "
      "string, Actual type: int64");
  const auto sparse = ParseExampleV2Node({DT_INT64}, {}, {}, {}, {});
  ExpectError(RunKernel(sparse, V2Inputs(Strings({Ex0()}), {"a", "b"}, {}, {}, {})),
              "Expected len(sparse_keys) == num_sparse but got: 2 vs. 1");
  const auto varlen = ParseExampleV2Node({}, {DT_INT64}, {{-1, 2}}, {}, {});
  ExpectError(RunKernel(varlen, V2Inputs(AsTensor<std::string>({Ex0(), Ex1()}, {1, 2}), {}, {"x"},
                                         {}, {AsTensor<int64_t>({0}, {})})),
              "Expected serialized to be a scalar or vector, got shape: [1,2]");
}

// ---- ParseSingleExample ----

TEST(ParseSingleExampleTest, KeysFromAttrs) {
  auto node = NodeBuilder("ParseSingleExample")
                  .Attr("num_sparse", 1)
                  .Attr("sparse_keys", std::vector<std::string>{"ids"})
                  .Attr("dense_keys", std::vector<std::string>{"x", "y"})
                  .Attr("sparse_types", std::vector<DataType>{DT_INT64})
                  .Attr("Tdense", std::vector<DataType>{DT_FLOAT, DT_INT64})
                  .Build();
  AddShapes(&node, {{1}, {2}});
  for (DeviceType device : TestDevices()) {
    auto out = RunKernel(node, {Scalar(Ex0()), NoDefault(DT_FLOAT), AsTensor<int64_t>({9, 8}, {2})},
                         device);
    ExpectOutputs(out, {
                           AsTensor<int64_t>({0, 1, 2}, {3, 1}),
                           AsTensor<int64_t>({3, 4, 5}, {3}),
                           AsTensor<int64_t>({3}, {1}),
                           AsTensor<float>({1.5f}, {1}),
                           AsTensor<int64_t>({9, 8}, {2}),
                       });
  }
  ExpectError(
      RunKernel(node, {Strings({Ex0()}), NoDefault(DT_FLOAT), AsTensor<int64_t>({9, 8}, {2})}),
      "Expected serialized to be a scalar, got shape: [1]");
}

}  // namespace
}  // namespace string_ops
}  // namespace tensord
