#include "server/rest/number_list.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>

#include "gtest/gtest.h"

namespace tensord {
namespace {

namespace tf = ::tensorflow;

// Every test runs twice: read by one thread, and split between two at the text's middle.
class NumberListTest : public ::testing::TestWithParam<size_t> {
 protected:
  NumberListOptions Roomy() const {
    NumberListOptions options;
    options.max_nesting = 64;
    options.max_elements = 1 << 20;
    options.max_bytes = 1 << 24;
    options.parallel_min_chars = GetParam();
    return options;
  }
};

INSTANTIATE_TEST_SUITE_P(OneOrTwoThreads, NumberListTest, ::testing::Values(0, 1),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                           return info.param ? std::string("TwoThreads") : "OneThread";
                         });

template <typename T>
std::vector<T> Values(const std::string& bytes) {
  std::vector<T> values(bytes.size() / sizeof(T));
  std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
  return values;
}

struct Scanned {
  bool ok = false;
  std::string bytes;
  std::vector<int64_t> dims;
  size_t length = 0;
};

Scanned Scan(const std::string& text, tf::DataType dtype, const NumberListOptions& options) {
  Scanned s;
  s.ok = ScanNumberList(text, dtype, options, nullptr, &s.bytes, &s.dims, &s.length);
  return s;
}

TEST_P(NumberListTest, ReadsARectangularListInRowMajorOrder) {
  const std::string text = "[ [[1, 2.5 ,-3]\n,[4e2,\t5E-1, 0]] ,[[-0,7,8],[9,10,11]]]";
  const Scanned s = Scan(text + ", \"rest\"]", tf::DT_FLOAT, Roomy());
  ASSERT_TRUE(s.ok);
  EXPECT_EQ(s.dims, (std::vector<int64_t>{2, 2, 3}));
  EXPECT_EQ(s.length, text.size());
  const std::vector<float> v = Values<float>(s.bytes);
  EXPECT_EQ(v, (std::vector<float>{1, 2.5f, -3, 400, 0.5f, 0, 0, 7, 8, 9, 10, 11}));
  EXPECT_TRUE(std::signbit(v[6]));  // -0 stays negative, as simdjson reads it
}

TEST_P(NumberListTest, FloatsAreTheCorrectlyRoundedDoubleRoundedToFloat) {
  // Random 17-digit decimals, as Python writes float32 pixels, and extreme exponents.
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> unit(-1, 1);
  std::uniform_int_distribution<int> exponent(-300, 300);
  std::string text = "[";
  std::vector<std::string> tokens;
  for (int i = 0; i < 2000; ++i) {
    char token[64];
    std::snprintf(token, sizeof token, i % 2 ? "%.17g" : "%.20fe%d", unit(rng),
                  i % 2 ? 0 : exponent(rng));
    tokens.push_back(token);
    text += (i ? "," : "") + tokens.back();
  }
  text += "]";
  const Scanned f = Scan(text, tf::DT_FLOAT, Roomy());
  const Scanned d = Scan(text, tf::DT_DOUBLE, Roomy());
  ASSERT_TRUE(f.ok);
  ASSERT_TRUE(d.ok);
  const std::vector<float> floats = Values<float>(f.bytes);
  const std::vector<double> doubles = Values<double>(d.bytes);
  ASSERT_EQ(floats.size(), tokens.size());
  for (size_t i = 0; i < tokens.size(); ++i) {
    const double want = std::strtod(tokens[i].c_str(), nullptr);
    EXPECT_EQ(doubles[i], want) << tokens[i];
    EXPECT_EQ(floats[i], static_cast<float>(want)) << tokens[i];
  }
}

TEST_P(NumberListTest, ReadsEachIntegerTypeWithinItsRange) {
  const Scanned u8 = Scan("[0, 255]", tf::DT_UINT8, Roomy());
  ASSERT_TRUE(u8.ok);
  EXPECT_EQ(Values<uint8_t>(u8.bytes), (std::vector<uint8_t>{0, 255}));
  const Scanned i64 = Scan("[-9223372036854775808, 9223372036854775807]", tf::DT_INT64, Roomy());
  ASSERT_TRUE(i64.ok);
  EXPECT_EQ(Values<int64_t>(i64.bytes),
            (std::vector<int64_t>{std::numeric_limits<int64_t>::min(),
                                  std::numeric_limits<int64_t>::max()}));
  const Scanned i16 = Scan("[[-32768],[32767]]", tf::DT_INT16, Roomy());
  ASSERT_TRUE(i16.ok);
  EXPECT_EQ(i16.dims, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(Values<int16_t>(i16.bytes), (std::vector<int16_t>{-32768, 32767}));
  // Out of range, or not a plain integer: the general reader's conversion or error.
  EXPECT_FALSE(Scan("[256]", tf::DT_UINT8, Roomy()).ok);
  EXPECT_FALSE(Scan("[-1]", tf::DT_UINT32, Roomy()).ok);
  EXPECT_FALSE(Scan("[2147483648]", tf::DT_INT32, Roomy()).ok);
  EXPECT_FALSE(Scan("[9223372036854775808]", tf::DT_INT64, Roomy()).ok);
  EXPECT_FALSE(Scan("[2.0]", tf::DT_INT32, Roomy()).ok);
  EXPECT_FALSE(Scan("[1e3]", tf::DT_INT64, Roomy()).ok);
}

TEST_P(NumberListTest, DeclinesWhatTheGeneralReaderMustJudge) {
  for (const char* text : {
           "[]",          "[[]]",        "[[1],[]]",
           "[[1],[2,3]]", "[[1,2],[3]]", "[1,[2]]",
           "[[1],2]",     "[[[1]],[2]]", "[1,]",
           "[,1]",        "[1 2]",       "[01]",
           "[1.]",        "[.5]",        "[-]",
           "[+1]",        "[1e]",        "[1e+]",
           "[0x10]",      "[NaN]",       "[Infinity]",
           "[-Infinity]", "[1e400]",     "[true]",
           "[null]",      "[\"1\"]",     "[{\"b64\":\"AA==\"}]",
           "[1,2",        "[[1,2]",      "[1;2]",
           "1",           "{}",          "",
           " [1]",
       }) {
    std::string out = "kept";
    std::vector<int64_t> dims = {9};
    size_t length = 99;
    EXPECT_FALSE(ScanNumberList(text, tf::DT_FLOAT, Roomy(), nullptr, &out, &dims, &length))
        << text;
    EXPECT_EQ(out, "kept") << text;
    EXPECT_EQ(dims, std::vector<int64_t>{9}) << text;
    EXPECT_EQ(length, 99u) << text;
  }
  for (tf::DataType dtype : {tf::DT_UINT64, tf::DT_BOOL, tf::DT_STRING, tf::DT_HALF}) {
    EXPECT_FALSE(Scan("[1]", dtype, Roomy()).ok) << tf::DataType_Name(dtype);
  }
}

TEST_P(NumberListTest, DeclinesAtTheLimitsAndKeepsWhatWasThere) {
  NumberListOptions limits = Roomy();
  limits.max_elements = 4;
  EXPECT_TRUE(Scan("[[1,2],[3,4]]", tf::DT_FLOAT, limits).ok);
  EXPECT_FALSE(Scan("[[1,2],[3,4],[5,6]]", tf::DT_FLOAT, limits).ok);
  limits = Roomy();
  limits.max_bytes = 16;
  EXPECT_TRUE(Scan("[1,2,3,4]", tf::DT_FLOAT, limits).ok);
  EXPECT_FALSE(Scan("[1,2,3,4]", tf::DT_DOUBLE, limits).ok);
  limits = Roomy();
  limits.max_nesting = 2;
  EXPECT_TRUE(Scan("[[1]]", tf::DT_FLOAT, limits).ok);
  EXPECT_FALSE(Scan("[[[1]]]", tf::DT_FLOAT, limits).ok);

  // A decline after many values were buffered and flushed leaves the output as it was.
  std::string text = "[";
  for (int i = 0; i < 5000; ++i) text += std::to_string(i) + ",";
  text += "\"x\"]";
  std::string out = "kept";
  std::vector<int64_t> dims;
  size_t length = 0;
  EXPECT_FALSE(ScanNumberList(text, tf::DT_INT32, Roomy(), nullptr, &out, &dims, &length));
  EXPECT_EQ(out, "kept");
}

TEST_P(NumberListTest, AppendsAfterExistingBytes) {
  std::string out = "ab";
  std::vector<int64_t> dims;
  size_t length = 0;
  ASSERT_TRUE(ScanNumberList("[7]", tf::DT_INT8, Roomy(), nullptr, &out, &dims, &length));
  EXPECT_EQ(out, std::string("ab\x07", 3));
  EXPECT_EQ(dims, std::vector<int64_t>{1});
  EXPECT_EQ(length, 3u);
}

// The second thread starts after the first ',' past the text's middle, so what follows the list
// moves the split: each length of it puts the split at another place in the list, or past its
// end, among numbers the list does not hold.
TEST(NumberListSplitTest, EverySplitGivesWhatOneThreadReads) {
  NumberListOptions one;
  one.max_nesting = 64;
  one.max_elements = 1 << 20;
  one.max_bytes = 1 << 24;
  NumberListOptions two = one;
  two.parallel_min_chars = 1;
  int accepted = 0;
  for (const std::string list :
       {"[[1, 2.5],[-3,4e1]]", "[[[1],[2]],[[3],[4]], [[5] ,[6]]]", "[1,2,3,4,5,6,7]",
        "[[1,2],[3]]", "[[1,2],[3,x]]", "[[1,2],[3,4],[5,6]]]", "[[1,2],[[3],4]]"}) {
    for (size_t extra = 0; extra <= 2 * list.size(); ++extra) {
      const std::string text = list + ", [9, 9, 9], \"" + std::string(extra, ',') + "\"]";
      const Scanned a = Scan(text, tf::DT_FLOAT, one);
      const Scanned b = Scan(text, tf::DT_FLOAT, two);
      ASSERT_EQ(a.ok, b.ok) << text;
      EXPECT_EQ(a.bytes, b.bytes) << text;
      EXPECT_EQ(a.dims, b.dims) << text;
      EXPECT_EQ(a.length, b.length) << text;
      accepted += a.ok;
    }
  }
  // The first three lists and the sixth (a list followed by ']') are read at every split.
  EXPECT_EQ(accepted, 39 + 67 + 31 + 41);
}

// A lookahead begun anywhere in a body (before, inside or after the list, inside the text that
// follows it) changes nothing in what the scan of a list in that body reads; integer lists do
// not use it.
TEST(NumberListSplitTest, ALookaheadFromAnywhereGivesWhatOneThreadReads) {
  NumberListOptions options;
  options.max_nesting = 64;
  options.max_elements = 1 << 20;
  options.max_bytes = 1 << 24;
  int served = 0;
  for (const std::string list :
       {"[[1, 2.5],[-3,4e1]]", "[[[1],[2]],[[3],[4]], [[5] ,[6]]]", "[[1,2],[3]]", "[[1,2],[3,x]]",
        "[[1,2],[[3],4]]", "[[1,2],[3,4],[5,6]]]"}) {
    const std::string body = "{\"a\": [0, 1], \"x\": " + list + ", \"y\": [9, 9, 9]}";
    const std::string_view text = std::string_view(body).substr(body.find("\"x\": ") + 5);
    for (tf::DataType dtype : {tf::DT_FLOAT, tf::DT_DOUBLE, tf::DT_INT32}) {
      const Scanned want = Scan(std::string(text), dtype, options);
      for (size_t from = 0; from <= body.size(); ++from) {
        NumberListLookahead lookahead(body, from, options);
        Scanned got;
        got.ok =
            ScanNumberList(text, dtype, options, &lookahead, &got.bytes, &got.dims, &got.length);
        ASSERT_EQ(got.ok, want.ok) << body << " from " << from;
        EXPECT_EQ(got.bytes, want.bytes) << body << " from " << from;
        EXPECT_EQ(got.dims, want.dims) << body << " from " << from;
        EXPECT_EQ(got.length, want.length) << body << " from " << from;
        served += got.ok && lookahead.Serves(text) &&
                  lookahead.SplitIn(text) < static_cast<size_t>(want.length);
      }
    }
  }
  EXPECT_GT(served, 0);  // some lists were finished from the lookahead's numbers
}

}  // namespace
}  // namespace tensord
