#include "runtime/util/json.h"

#include <cmath>
#include <limits>
#include <string>

#include "gtest/gtest.h"

namespace tensord {
namespace json {
namespace {

Value MustParse(const std::string& text) {
  absl::StatusOr<Value> v = Parse(text);
  EXPECT_TRUE(v.ok()) << text << ": " << v.status();
  return v.ok() ? *v : Value();
}

std::string ParseError(const std::string& text, const ParseOptions& options = {}) {
  absl::StatusOr<Value> v = Parse(text, options);
  EXPECT_FALSE(v.ok()) << text << " parsed";
  return v.ok() ? "" : std::string(v.status().message());
}

TEST(JsonTest, Scalars) {
  EXPECT_TRUE(MustParse("null").is_null());
  EXPECT_TRUE(MustParse(" true ").bool_value());
  EXPECT_FALSE(MustParse("false").bool_value());
  EXPECT_EQ(MustParse("-12.5e3").number_text(), "-12.5e3");
  EXPECT_DOUBLE_EQ(MustParse("-12.5e3").number(), -12500.0);
  EXPECT_EQ(MustParse("\"hi\"").string_value(), "hi");
}

TEST(JsonTest, NestedStructure) {
  Value v = MustParse(R"({"a": [1, [2, 3], {}], "b": {"c": null}, "d": []})");
  ASSERT_TRUE(v.is_object());
  EXPECT_EQ(v.keys(), (std::vector<std::string>{"a", "b", "d"}));
  const Value* a = v.Find("a");
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(a->is_array());
  ASSERT_EQ(a->size(), 3u);
  EXPECT_EQ(a->items()[1].items()[1].number_text(), "3");
  EXPECT_TRUE(a->items()[2].is_object());
  EXPECT_TRUE(v.Find("b")->Find("c")->is_null());
  EXPECT_EQ(v.Find("d")->size(), 0u);
  EXPECT_EQ(v.Find("zz"), nullptr);
}

TEST(JsonTest, RepeatedKeyReplacesInPlace) {
  Value v = MustParse(R"({"a": 1, "b": 2, "a": 3})");
  EXPECT_EQ(v.keys(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(v.Find("a")->number_text(), "3");
}

TEST(JsonTest, StringEscapes) {
  EXPECT_EQ(MustParse(R"("q\" b\\ s\/ \b\f\n\r\t")").string_value(), "q\" b\\ s/ \b\f\n\r\t");
  EXPECT_EQ(MustParse(R"("\u0041\u00e9\u6f22")").string_value(), "A\xC3\xA9\xE6\xBC\xA2");
  // U+1F600 as a surrogate pair.
  EXPECT_EQ(MustParse(R"("\ud83d\ude00")").string_value(), "\xF0\x9F\x98\x80");
  EXPECT_EQ(MustParse("\"\xC3\xA9\"").string_value(), "\xC3\xA9");  // raw UTF-8 passes through
}

TEST(JsonTest, NanAndInfinityExtension) {
  Value v = MustParse("[NaN, Infinity, -Infinity]");
  EXPECT_TRUE(std::isnan(v.items()[0].number()));
  EXPECT_EQ(v.items()[1].number(), std::numeric_limits<double>::infinity());
  EXPECT_EQ(v.items()[2].number(), -std::numeric_limits<double>::infinity());
  ParseOptions strict;
  strict.allow_nan_inf = false;
  ParseError("NaN", strict);
  ParseError("-Infinity", strict);
}

TEST(JsonTest, SyntaxErrorsNameLineAndColumn) {
  EXPECT_EQ(ParseError("[1,\n 2,]"), "invalid JSON at line 2 column 4: unexpected character ']'");
  EXPECT_NE(ParseError("[1 2]").find("expected ',' or ']'"), std::string::npos);
  EXPECT_NE(ParseError("{\"a\" 1}").find("expected ':'"), std::string::npos);
  EXPECT_NE(ParseError("{1: 2}").find("expected a string key"), std::string::npos);
  EXPECT_NE(ParseError("[1] x").find("after the JSON value"), std::string::npos);
  EXPECT_NE(ParseError("\"abc").find("unterminated string"), std::string::npos);
  EXPECT_NE(ParseError("\"a\nb\"").find("control character"), std::string::npos);
  EXPECT_NE(ParseError(R"("\x")").find("invalid escape"), std::string::npos);
  EXPECT_NE(ParseError(R"("\ud83d")").find("surrogate"), std::string::npos);
  EXPECT_NE(ParseError(R"("\u12G4")").find("hex digit"), std::string::npos);
  EXPECT_NE(ParseError("01").find("leading zeros"), std::string::npos);
  EXPECT_NE(ParseError("1.").find("after '.'"), std::string::npos);
  EXPECT_NE(ParseError("1e").find("exponent"), std::string::npos);
  EXPECT_NE(ParseError("-").find("invalid number"), std::string::npos);
  EXPECT_NE(ParseError("").find("unexpected end of input"), std::string::npos);
  EXPECT_NE(ParseError("[1,").find("unexpected end"), std::string::npos);
  EXPECT_NE(ParseError("tru").find("unexpected character 't'"), std::string::npos);
  EXPECT_NE(ParseError("'a'").find("unexpected character"), std::string::npos);
}

TEST(JsonTest, NumberGrammar) {
  for (const char* number : {"0", "-0", "7", "-12", "0.5", "10.25", "1e5", "1E+05", "-2.5e-3"}) {
    EXPECT_TRUE(IsNumber(number)) << number;
  }
  for (const char* other :
       {"", "-", "01", "-01", "1.", ".5", "1e", "1e+", "+1", "inf", "NaN", "1 ", "0x10", "1.e5"}) {
    EXPECT_FALSE(IsNumber(other)) << other;
  }
  // A prefix is read up to the first byte that cannot continue the number.
  EXPECT_EQ(ScanNumber("12.5]").length, 4u);
  EXPECT_EQ(ScanNumber("12.5]").error, nullptr);
  const NumberScan bad = ScanNumber("3.x");
  EXPECT_EQ(bad.length, 2u);
  EXPECT_STREQ(bad.error, "invalid number: expected digits after '.'");
}

TEST(JsonTest, DepthLimit) {
  ParseOptions options;
  options.max_depth = 3;
  EXPECT_TRUE(Parse("[[[1]]]", options).ok());
  EXPECT_NE(ParseError("[[[[1]]]]", options).find("nesting deeper than 3 levels"),
            std::string::npos);
  EXPECT_EQ(Parse("[[[[1]]]]", options).status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(Parse("[[[1,]]]", options).status().code(), absl::StatusCode::kInvalidArgument);
  // The default limit stops runaway recursion long before the stack would overflow.
  EXPECT_NE(ParseError(std::string(100000, '[')).find("nesting deeper than"), std::string::npos);
}

TEST(JsonTest, IntegerConversions) {
  int64_t i = 0;
  uint64_t u = 0;
  EXPECT_TRUE(MustParse("9223372036854775807").ToInt64(&i));
  EXPECT_EQ(i, std::numeric_limits<int64_t>::max());
  EXPECT_TRUE(MustParse("-9223372036854775808").ToInt64(&i));
  EXPECT_EQ(i, std::numeric_limits<int64_t>::min());
  EXPECT_FALSE(MustParse("9223372036854775808").ToInt64(&i));
  EXPECT_TRUE(MustParse("18446744073709551615").ToUint64(&u));
  EXPECT_EQ(u, std::numeric_limits<uint64_t>::max());
  EXPECT_FALSE(MustParse("18446744073709551616").ToUint64(&u));
  EXPECT_FALSE(MustParse("-1").ToUint64(&u));
  EXPECT_TRUE(MustParse("-0").ToUint64(&u));
  EXPECT_EQ(u, 0u);
  EXPECT_TRUE(MustParse("2.0").ToInt64(&i));
  EXPECT_EQ(i, 2);
  EXPECT_TRUE(MustParse("1e3").ToInt64(&i));
  EXPECT_EQ(i, 1000);
  EXPECT_FALSE(MustParse("1.5").ToInt64(&i));
  EXPECT_FALSE(MustParse("1e300").ToInt64(&i));
  EXPECT_FALSE(MustParse("NaN").ToInt64(&i));
  EXPECT_FALSE(MustParse("\"1\"").ToInt64(&i));
}

TEST(JsonTest, WriteCompactAndIndented) {
  Value v = Value::Object();
  v.Set("name", Value::String("a\"b\n"));
  Value list = Value::Array();
  list.Append(Value::Int(-3));
  list.Append(Value::Number(0.1));
  list.Append(Value::Bool(true));
  list.Append(Value());
  v.Set("list", std::move(list));
  v.Set("empty", Value::Object());
  EXPECT_EQ(Write(v), R"({"name": "a\"b\n", "list": [-3, 0.1, true, null], "empty": {}})");
  EXPECT_EQ(Write(v, 2),
            "{\n  \"name\": \"a\\\"b\\n\",\n  \"list\": [-3, 0.1, true, null],\n"
            "  \"empty\": {}\n}");
  // Lists holding lists or objects are spread over lines like objects.
  Value nested = Value::Array();
  nested.Append(Value::Array());
  nested.Append(Value::Object());
  EXPECT_EQ(Write(nested, 1), "[\n [],\n {}\n]");
  // What is written parses back to the same text.
  EXPECT_EQ(Write(MustParse(Write(v, 2))), Write(v));
}

TEST(JsonTest, NumberFormatting) {
  EXPECT_EQ(Value::Number(2.5).number_text(), "2.5");
  EXPECT_EQ(Value::Number(1e300).number_text(), "1e+300");
  EXPECT_EQ(Value::Number(std::nan("")).number_text(), "NaN");
  EXPECT_EQ(Value::Number(-std::numeric_limits<double>::infinity()).number_text(), "-Infinity");
  EXPECT_EQ(MustParse(Value::Number(0.1 + 0.2).number_text()).number(), 0.1 + 0.2);
}

TEST(JsonTest, FloatFormatting) {
  EXPECT_EQ(Value::Float(0.1f).number_text(), "0.1");
  EXPECT_EQ(Value::Float(1.0f / 3).number_text(), "0.33333334");
  EXPECT_EQ(Value::Float(1e-7f).number_text(), "1e-07");
  EXPECT_EQ(Value::Float(3.0f).number_text(), "3.0");
  EXPECT_EQ(Value::Float(-0.0f).number_text(), "-0.0");
  EXPECT_EQ(Value::Float(1e20f).number_text(), "1e+20");
  EXPECT_EQ(Value::Float(NAN).number_text(), "NaN");
  EXPECT_EQ(Value::Float(INFINITY).number_text(), "Infinity");
  EXPECT_EQ(Value::Float(-INFINITY).number_text(), "-Infinity");
}

TEST(JsonTest, DoubleFormatting) {
  EXPECT_EQ(Value::Double(1.0).number_text(), "1.0");
  EXPECT_EQ(Value::Double(0.1).number_text(), "0.1");
  EXPECT_EQ(Value::Double(1.0 / 3).number_text(), "0.3333333333333333");
  EXPECT_EQ(Value::Double(1e22).number_text(), "1e+22");
  EXPECT_EQ(Value::Double(-2.0).number_text(), "-2.0");
}

TEST(JsonTest, QuoteEscapesControlCharacters) {
  std::string out;
  AppendQuoted(std::string("a\x01\x1f\x7f\t", 5), &out);
  EXPECT_EQ(out, "\"a\\u0001\\u001f\\u007f\\t\"");
  EXPECT_EQ(MustParse(out).string_value(), std::string("a\x01\x1f\x7f\t", 5));
}

TEST(JsonTest, Utf8Validation) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("plain ascii"));
  EXPECT_TRUE(IsValidUtf8("\xC3\xA9\xE6\xBC\xA2\xF0\x9F\x98\x80"));
  EXPECT_FALSE(IsValidUtf8("\xC3"));              // truncated
  EXPECT_FALSE(IsValidUtf8("\xE6\xBC"));          // truncated
  EXPECT_FALSE(IsValidUtf8("\xC0\xAF"));          // overlong '/'
  EXPECT_FALSE(IsValidUtf8("\xED\xA0\x80"));      // surrogate
  EXPECT_FALSE(IsValidUtf8("\xF4\x90\x80\x80"));  // past U+10FFFF
  EXPECT_FALSE(IsValidUtf8("\xFF"));
  EXPECT_FALSE(IsValidUtf8("a\x80"));
}

}  // namespace
}  // namespace json
}  // namespace tensord
