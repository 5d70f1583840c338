#include "server/logging/log.h"

#include <gtest/gtest.h>

namespace tensord {
namespace {

TEST(LogTest, TextLineQuotesOnlyWhatNeedsIt) {
  EXPECT_EQ(FormatLogLine(LogFormat::kText, "2026-11-30T07:00:00.123Z", LogLevel::kInfo,
                          "model version available",
                          {{"model", "mlp"}, {"version", "1"}, {"error", "bad \"x\" = 1"}, {"e", ""}}),
            "2026-11-30T07:00:00.123Z INFO model version available model=mlp version=1 "
            "error=\"bad \\\"x\\\" = 1\" e=\"\"");
}

TEST(LogTest, JsonLineIsOneObject) {
  EXPECT_EQ(FormatLogLine(LogFormat::kJson, "T", LogLevel::kError, "load failed",
                          {{"model", "m\n1"}}),
            "{\"time\":\"T\",\"level\":\"ERROR\",\"msg\":\"load failed\",\"model\":\"m\\n1\"}");
}

TEST(LogTest, ParsesFormatNames) {
  LogFormat format = LogFormat::kText;
  EXPECT_TRUE(ParseLogFormat("json", &format));
  EXPECT_EQ(format, LogFormat::kJson);
  EXPECT_TRUE(ParseLogFormat("text", &format));
  EXPECT_EQ(format, LogFormat::kText);
  EXPECT_FALSE(ParseLogFormat("xml", &format));
}

}  // namespace
}  // namespace tensord
