// Structured daemon logs: one line per event (model loaded, unloaded, config applied, error),
// never one per request by default. Text lines read well in a terminal; JSON lines suit log
// collectors:
//
//   2026-11-30T07:00:00.123Z INFO model version available model=mlp version=1 load_ms=12.5
//   {"time":"2026-11-30T07:00:00.123Z","level":"INFO","msg":"model version available","model":"mlp",...}
//
//   LogEvent(LogLevel::kInfo, "model version available", {{"model", name}, {"version", "1"}});
//
// Thread-safe: each line is written with one call, so lines from different threads never
// interleave.
#ifndef TENSORD_SERVER_LOGGING_LOG_H_
#define TENSORD_SERVER_LOGGING_LOG_H_

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <string_view>

namespace tensord {

enum class LogLevel { kInfo, kWarning, kError };
enum class LogFormat { kText, kJson };

using LogFields = std::vector<std::pair<std::string, std::string>>;

// Process-wide output format; text by default. Set once at startup.
void SetLogFormat(LogFormat format);

// Parses "text" or "json".
bool ParseLogFormat(std::string_view name, LogFormat* format);

// Formats one line (without the trailing newline) for `format`; `time` is an RFC 3339 UTC time.
std::string FormatLogLine(LogFormat format, std::string_view time, LogLevel level,
                          std::string_view message, const LogFields& fields);

// Writes one line to stderr in the process-wide format, stamped with the current time.
void LogEvent(LogLevel level, std::string_view message, const LogFields& fields = {});

}  // namespace tensord

#endif  // TENSORD_SERVER_LOGGING_LOG_H_
