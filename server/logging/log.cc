#include "server/logging/log.h"

#include <atomic>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "runtime/util/json.h"

namespace tensord {
namespace {

std::atomic<LogFormat> g_format{LogFormat::kText};

std::string_view LevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kInfo:
      return "INFO";
    case LogLevel::kWarning:
      return "WARNING";
    case LogLevel::kError:
      return "ERROR";
  }
  return "INFO";
}

// Text values are quoted only when they would not read back as one token.
void AppendTextValue(std::string_view value, std::string* out) {
  const bool plain = !value.empty() && value.find_first_of(" \"=\t\n") == std::string_view::npos;
  if (plain) {
    out->append(value.data(), value.size());
  } else {
    json::AppendQuoted(value, out);
  }
}

}  // namespace

void SetLogFormat(LogFormat format) { g_format.store(format); }

bool ParseLogFormat(std::string_view name, LogFormat* format) {
  if (name == "text") {
    *format = LogFormat::kText;
  } else if (name == "json") {
    *format = LogFormat::kJson;
  } else {
    return false;
  }
  return true;
}

std::string FormatLogLine(LogFormat format, std::string_view time, LogLevel level,
                          std::string_view message, const LogFields& fields) {
  std::string line;
  if (format == LogFormat::kJson) {
    line = "{\"time\":";
    json::AppendQuoted(time, &line);
    line.append(",\"level\":\"").append(LevelName(level)).append("\",\"msg\":");
    json::AppendQuoted(message, &line);
    for (const auto& [key, value] : fields) {
      line.push_back(',');
      json::AppendQuoted(key, &line);
      line.push_back(':');
      json::AppendQuoted(value, &line);
    }
    line.push_back('}');
    return line;
  }
  line.append(time).append(" ").append(LevelName(level)).append(" ").append(message);
  for (const auto& [key, value] : fields) {
    line.append(" ").append(key).append("=");
    AppendTextValue(value, &line);
  }
  return line;
}

void LogEvent(LogLevel level, std::string_view message, const LogFields& fields) {
  const std::string time =
      absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", absl::Now(), absl::UTCTimeZone());
  std::string line = FormatLogLine(g_format.load(), time, level, message, fields);
  line.push_back('\n');
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

}  // namespace tensord
