#include "clients/tensorctl/inspect.h"

#include <string>

#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace tensord {
namespace tensorctl {
namespace {

::tensorflow::MetaGraphDef HalfPlusTwo() {
  ::tensorflow::MetaGraphDef meta;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(R"pb(
    meta_info_def { tags: "serve" }
    signature_def {
      key: "serving_default"
      value {
        inputs { key: "x" value { name: "x:0" dtype: DT_FLOAT
                                  tensor_shape { dim { size: -1 } dim { size: 1 } } } }
        outputs { key: "y" value { name: "y:0" dtype: DT_FLOAT
                                   tensor_shape { dim { size: -1 } dim { size: 1 } } } }
        method_name: "tensorflow/serving/predict"
      }
    }
    signature_def {
      key: "classify"
      value {
        inputs { key: "inputs" value { name: "tf_example:0" dtype: DT_STRING
                                       tensor_shape { unknown_rank: true } } }
        outputs { key: "scores" value { name: "y:0" dtype: DT_FLOAT_REF tensor_shape {} } }
        outputs { key: "classes" value { name: "c:0" dtype: DT_STRING
                                         tensor_shape { dim { size: 3 } } } }
        method_name: "tensorflow/serving/classify"
      }
    }
  )pb", &meta));
  return meta;
}

TEST(InspectTest, ShapeText) {
  ::tensorflow::TensorShapeProto shape;
  EXPECT_EQ(ShapeText(shape), "()");
  shape.add_dim()->set_size(-1);
  EXPECT_EQ(ShapeText(shape), "(-1,)");
  shape.add_dim()->set_size(1);
  EXPECT_EQ(ShapeText(shape), "(-1, 1)");
  shape.set_unknown_rank(true);
  EXPECT_EQ(ShapeText(shape), "unknown rank");
}

TEST(InspectTest, Text) {
  ::tensorflow::MetaGraphDef meta = HalfPlusTwo();
  std::string text = InspectText({&meta});
  EXPECT_EQ(text.rfind("The given SavedModel contains the following tag-sets:\n'serve'\n", 0), 0u)
      << text;
  const char* expected_default = R"(signature_def['serving_default']:
  The given SavedModel SignatureDef contains the following input(s):
    inputs['x'] tensor_info:
        dtype: DT_FLOAT
        shape: (-1, 1)
        name: x:0
  The given SavedModel SignatureDef contains the following output(s):
    outputs['y'] tensor_info:
        dtype: DT_FLOAT
        shape: (-1, 1)
        name: y:0
  Method name is: tensorflow/serving/predict
)";
  EXPECT_NE(text.find(expected_default), std::string::npos) << text;
  EXPECT_NE(text.find("shape: unknown rank"), std::string::npos);
  EXPECT_NE(text.find("dtype: DT_FLOAT_REF"), std::string::npos);
  // Sorted: 'classify' before 'serving_default', and 'classes' before 'scores'.
  EXPECT_LT(text.find("signature_def['classify']"), text.find("signature_def['serving_default']"));
  EXPECT_LT(text.find("outputs['classes']"), text.find("outputs['scores']"));
}

TEST(InspectTest, Json) {
  ::tensorflow::MetaGraphDef meta = HalfPlusTwo();
  ::tensorflow::MetaGraphDef gpu;
  gpu.mutable_meta_info_def()->add_tags("serve");
  gpu.mutable_meta_info_def()->add_tags("gpu");
  std::string text = json::Write(InspectJson({&meta, &gpu}));
  EXPECT_EQ(text,
            R"({"meta_graphs": [{"tags": ["serve"], "signatures": {"classify": )"
            R"({"method_name": "tensorflow/serving/classify", "inputs": {"inputs": )"
            R"({"name": "tf_example:0", "dtype": "DT_STRING", "shape": null}}, "outputs": )"
            R"({"classes": {"name": "c:0", "dtype": "DT_STRING", "shape": [3]}, "scores": )"
            R"({"name": "y:0", "dtype": "DT_FLOAT_REF", "shape": []}}}, "serving_default": )"
            R"({"method_name": "tensorflow/serving/predict", "inputs": {"x": {"name": "x:0", )"
            R"("dtype": "DT_FLOAT", "shape": [-1, 1]}}, "outputs": {"y": {"name": "y:0", )"
            R"("dtype": "DT_FLOAT", "shape": [-1, 1]}}}}}, {"tags": ["serve", "gpu"], )"
            R"("signatures": {}}]})");
  // The indented form is the same JSON.
  absl::StatusOr<json::Value> parsed = json::Parse(json::Write(InspectJson({&meta, &gpu}), 2));
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(json::Write(*parsed), text);
}

}  // namespace
}  // namespace tensorctl
}  // namespace tensord
