#include "clients/tensorctl/run_io.h"

#include <cstdlib>
#include <filesystem>
#include <string>

#include "clients/common/npy.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace tensord {
namespace tensorctl {
namespace {

::tensorflow::SignatureDef Signature() {
  ::tensorflow::SignatureDef sig;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(R"pb(
    inputs { key: "x" value { name: "x:0" dtype: DT_FLOAT } }
    inputs { key: "ids" value { name: "ids:0" dtype: DT_INT64 } }
    inputs { key: "flag" value { name: "flag:0" dtype: DT_BOOL } }
    inputs { key: "text" value { name: "text:0" dtype: DT_STRING } }
    inputs { key: "ref" value { name: "ref:0" dtype: DT_INT32_REF } }
    inputs { key: "untyped" value { name: "u:0" } }
    outputs { key: "y" value { name: "y:0" dtype: DT_FLOAT } }
  )pb", &sig));
  return sig;
}

std::string TempDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir != nullptr ? dir : "/tmp";
}

std::string WriteNpy(const std::string& name, const Tensor& t) {
  std::string path = TempDir() + "/" + name;
  EXPECT_TRUE(npy::WriteFile(path, t).ok());
  return path;
}

absl::StatusOr<std::map<std::string, Tensor>> Build(std::vector<InputSpec> specs) {
  absl::StatusOr<std::vector<ParsedInput>> parsed = ReadInputs(specs);
  if (!parsed.ok()) return parsed.status();
  return BuildInputs("serving_default", Signature(), *parsed);
}

std::string BuildError(std::vector<InputSpec> specs) {
  auto result = Build(std::move(specs));
  EXPECT_FALSE(result.ok());
  return result.ok() ? "" : std::string(result.status().message());
}

TEST(RunIoTest, FindSignature) {
  std::map<std::string, ::tensorflow::SignatureDef> sigs = {{"serving_default", Signature()},
                                                           {"other", {}}};
  EXPECT_TRUE(FindSignature(sigs, "other").ok());
  absl::Status s = FindSignature(sigs, "nope").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(s.message(), "signature 'nope' not found; the model has 'other', 'serving_default'");
  EXPECT_EQ(FindSignature({}, "x").status().message(),
            "signature 'x' not found; the model has no signatures");
}

TEST(RunIoTest, JsonUsesTheDeclaredDtype) {
  auto inputs = Build({{"x", "[[1, 2]]"}, {"ids", "[9007199254740993]"}, {"flag", "true"},
                       {"text", "[\"a\", \"b\"]"}, {"ref", "[3]"}, {"untyped", "[0.5]"}});
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  EXPECT_EQ(inputs->at("x").dtype(), DT_FLOAT);
  EXPECT_EQ(inputs->at("x").shape(), (TensorShape{1, 2}));
  EXPECT_EQ(inputs->at("ids").dtype(), DT_INT64);
  EXPECT_EQ(inputs->at("ids").data<int64_t>()[0], 9007199254740993);
  EXPECT_EQ(inputs->at("flag").dtype(), DT_BOOL);
  EXPECT_EQ(inputs->at("flag").dims(), 0);
  EXPECT_EQ(inputs->at("text").dtype(), DT_STRING);
  EXPECT_EQ(inputs->at("text").data<std::string>()[1], "b");
  EXPECT_EQ(inputs->at("ref").dtype(), DT_INT32);  // the base type of a _REF dtype
  EXPECT_EQ(inputs->at("untyped").dtype(), DT_FLOAT);
}

TEST(RunIoTest, ClearErrors) {
  EXPECT_EQ(BuildError({{"z", "[1]"}}),
            "signature 'serving_default' has no input 'z'; its inputs are 'flag', 'ids', 'ref', "
            "'text', 'untyped', 'x'");
  EXPECT_EQ(BuildError({{"x", "[\"a\"]"}}),
            "input 'x': element [0]: expected a number for dtype float, got a string");
  EXPECT_NE(BuildError({{"x", "[[1], [2, 3]]"}}).find("input 'x': ragged input"),
            std::string::npos);
  EXPECT_NE(BuildError({{"x", "[1,"}}).find("input 'x': invalid JSON at line 1 column 4"),
            std::string::npos);
  EXPECT_NE(BuildError({{"x", "@/nonexistent/in.npy"}}).find("input 'x': cannot open"),
            std::string::npos);
}

TEST(RunIoTest, NpyInputs) {
  Tensor f(DT_FLOAT, TensorShape{2, 1});
  f.data<float>()[1] = 4.5f;
  auto inputs = Build({{"x", "@" + WriteNpy("f.npy", f)}});
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  EXPECT_EQ(inputs->at("x").shape(), (TensorShape{2, 1}));
  EXPECT_EQ(inputs->at("x").data<float>()[1], 4.5f);

  // numpy's default float64 is converted to the declared float, as a TensorFlow feed would.
  Tensor d(DT_DOUBLE, TensorShape{1});
  d.data<double>()[0] = 0.1;
  inputs = Build({{"x", "@" + WriteNpy("d.npy", d)}});
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  EXPECT_EQ(inputs->at("x").dtype(), DT_FLOAT);
  EXPECT_EQ(inputs->at("x").data<float>()[0], 0.1f);

  // int32 -> int64 widens; int64 -> int32 checks the range.
  Tensor i(DT_INT32, TensorShape{1});
  i.data<int32_t>()[0] = -7;
  inputs = Build({{"ids", "@" + WriteNpy("i.npy", i)}});
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  EXPECT_EQ(inputs->at("ids").data<int64_t>()[0], -7);
  Tensor big(DT_INT64, TensorShape{2});
  big.data<int64_t>()[1] = int64_t{1} << 40;
  EXPECT_NE(BuildError({{"ref", "@" + WriteNpy("big.npy", big)}}).find("element 1 does not fit"),
            std::string::npos);

  Tensor s(DT_STRING, TensorShape{1});
  s.data<std::string>()[0] = "a";
  std::string path = WriteNpy("s.npy", s);
  EXPECT_EQ(BuildError({{"x", "@" + path}}),
            "input 'x' (" + path + ") holds string data but the signature declares float");
  EXPECT_NE(BuildError({{"ids", "@" + WriteNpy("d2.npy", d)}})
                .find("holds double data but the signature declares int64"),
            std::string::npos);
  EXPECT_NE(BuildError({{"flag", "@" + WriteNpy("i2.npy", i)}})
                .find("holds int32 data but the signature declares bool"),
            std::string::npos);
}

TEST(RunIoTest, OutputsJson) {
  Tensor y(DT_FLOAT, TensorShape{3, 1});
  y.data<float>()[0] = 2.5f;
  y.data<float>()[1] = 3.0f;
  y.data<float>()[2] = 4.5f;
  Tensor s(DT_STRING, TensorShape{});
  s.scalar<std::string>() = "ok";
  auto text = OutputsJson({{"y", y}, {"label", s}});
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, R"({"outputs": {"label": "ok", "y": [[2.5], [3.0], [4.5]]}})");
}

TEST(RunIoTest, WriteOutputs) {
  std::string dir = TempDir() + "/outputs/nested";
  Tensor y(DT_INT64, TensorShape{2});
  y.data<int64_t>()[1] = 5;
  auto text = WriteOutputs({{"y", y}, {"a/b", y}, {"a_b", y}}, dir);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, "{\"outputs\": {\"a/b\": \"" + dir + "/a_b.npy\", \"a_b\": \"" + dir +
                       "/a_b_2.npy\", \"y\": \"" + dir + "/y.npy\"}}");
  absl::StatusOr<Tensor> back = npy::ReadFile(dir + "/y.npy");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->data<int64_t>()[1], 5);
  EXPECT_TRUE(std::filesystem::exists(dir + "/a_b_2.npy"));
  EXPECT_FALSE(WriteOutputs({{"y", y}}, "/proc/no/such/dir").ok());
}

}  // namespace
}  // namespace tensorctl
}  // namespace tensord
