#include "clients/tensorctl/bench_report.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "clients/tensorctl/remote.h"
#include "runtime/util/json.h"

namespace tensord {
namespace tensorctl {
namespace {

double Round(double value, int decimals) {
  const double scale = std::pow(10, decimals);
  return std::round(value * scale) / scale;
}

json::Value Ms(double ms) { return json::Value::Number(Round(ms, 3)); }

json::Value OptionalMs(const std::optional<double>& ms) {
  return ms ? Ms(*ms) : json::Value();
}

bool OpenLoop(const std::vector<LevelReport>& levels) {
  return !levels.empty() && levels[0].level.concurrency == 0;
}

// One level's columns, in the documented order. error_codes is an object.
json::Value Row(const LevelReport& report, const ReportOptions& options) {
  const Window& w = report.result.measured;
  const LatencySummary latency = Summarize(w.latencies_ns);
  const bool open_loop = report.level.concurrency == 0;
  json::Value row = json::Value::Object();
  row.Set("concurrency", open_loop ? json::Value() : json::Value::Int(report.level.concurrency));
  row.Set("request_rate",
          open_loop ? json::Value::Number(Round(report.level.request_rate, 2)) : json::Value());
  row.Set("requests", json::Value::Int(w.successes()));
  row.Set("errors", json::Value::Int(w.error_count()));
  json::Value codes = json::Value::Object();
  for (const auto& [code, count] : w.errors) codes.Set(GrpcCodeName(code), json::Value::Int(count));
  row.Set("error_codes", std::move(codes));
  row.Set("duration_s", json::Value::Number(Round(w.duration_s, 6)));
  row.Set("windows", json::Value::Int(report.result.trials));
  row.Set("stable", json::Value::Bool(report.result.stable));
  row.Set("throughput_infer_per_s", json::Value::Number(Round(w.throughput(), 2)));
  row.Set("throughput_rows_per_s",
          options.batch ? json::Value::Number(Round(w.throughput() * *options.batch, 2))
                        : json::Value());
  row.Set("latency_avg_ms", Ms(latency.avg_ms));
  row.Set("latency_p50_ms", Ms(latency.p50_ms));
  row.Set("latency_p90_ms", Ms(latency.p90_ms));
  row.Set("latency_p95_ms", Ms(latency.p95_ms));
  row.Set("latency_p99_ms", Ms(latency.p99_ms));
  row.Set("latency_max_ms", Ms(latency.max_ms));
  row.Set("delayed", open_loop ? json::Value::Int(w.delayed) : json::Value());
  const std::optional<ServerBreakdown>& server = report.server;
  row.Set("server_requests",
          server ? json::Value::Number(Round(server->requests, 0)) : json::Value());
  row.Set("server_request_ms", server ? OptionalMs(server->request_ms) : json::Value());
  row.Set("server_compute_ms", server ? OptionalMs(server->compute_ms) : json::Value());
  row.Set("server_queue_ms", server ? OptionalMs(server->queue_ms) : json::Value());
  return row;
}

std::string CsvCell(const json::Value& value) {
  switch (value.type()) {
    case json::Value::Type::kNull: return "";
    case json::Value::Type::kBool: return value.bool_value() ? "true" : "false";
    case json::Value::Type::kNumber: return value.number_text();
    case json::Value::Type::kObject: {
      std::vector<std::string> pairs;
      for (size_t i = 0; i < value.size(); ++i) {
        pairs.push_back(absl::StrCat(value.keys()[i], "=", value.items()[i].number_text()));
      }
      return absl::StrJoin(pairs, ";");
    }
    default: return value.string_value();  // no column holds strings or arrays
  }
}

std::string Fixed(double value, int decimals) { return absl::StrFormat("%.*f", decimals, value); }

std::string OptionalFixed(const std::optional<double>& value) {
  return value ? Fixed(*value, 3) : "-";
}

}  // namespace

std::string ReportTable(const std::vector<LevelReport>& levels, const ReportOptions& options) {
  const bool open_loop = OpenLoop(levels);
  // Columns of right-aligned cells; the errors column comes last, left-aligned.
  std::vector<std::vector<std::string>> columns;
  auto column = [&](std::string header) {
    columns.push_back({std::move(header)});
    return columns.size() - 1;
  };
  const size_t level = column(open_loop ? "rate/s" : "concurrency");
  const size_t requests = column("requests");
  const size_t infer = column("infer/s");
  const size_t rows = options.batch ? column("rows/s") : 0;
  const size_t p50 = column("p50 ms");
  const size_t p90 = column("p90 ms");
  const size_t p95 = column("p95 ms");
  const size_t p99 = column("p99 ms");
  const size_t avg = column("avg ms");
  const size_t delayed = open_loop ? column("delayed") : 0;
  const size_t server = options.server ? column("server ms") : 0;
  const size_t compute = options.server ? column("compute ms") : 0;
  const size_t queue = options.server ? column("queue ms") : 0;
  std::vector<std::string> errors = {"errors"};
  bool any_unstable = false;
  for (const LevelReport& report : levels) {
    const Window& w = report.result.measured;
    const LatencySummary latency = Summarize(w.latencies_ns);
    std::string name = open_loop ? absl::StrCat(Round(report.level.request_rate, 2))
                                 : absl::StrCat(report.level.concurrency);
    if (!report.result.stable) {
      name += "*";
      any_unstable = true;
    }
    columns[level].push_back(name);
    columns[requests].push_back(absl::StrCat(w.successes()));
    columns[infer].push_back(Fixed(w.throughput(), 1));
    if (options.batch) columns[rows].push_back(Fixed(w.throughput() * *options.batch, 1));
    columns[p50].push_back(Fixed(latency.p50_ms, 3));
    columns[p90].push_back(Fixed(latency.p90_ms, 3));
    columns[p95].push_back(Fixed(latency.p95_ms, 3));
    columns[p99].push_back(Fixed(latency.p99_ms, 3));
    columns[avg].push_back(Fixed(latency.avg_ms, 3));
    if (open_loop) columns[delayed].push_back(absl::StrCat(w.delayed));
    if (options.server) {
      const ServerBreakdown breakdown = report.server.value_or(ServerBreakdown());
      columns[server].push_back(OptionalFixed(breakdown.request_ms));
      columns[compute].push_back(OptionalFixed(breakdown.compute_ms));
      columns[queue].push_back(OptionalFixed(breakdown.queue_ms));
    }
    std::string error_text = absl::StrCat(w.error_count());
    if (!w.errors.empty()) {
      std::vector<std::string> codes;
      for (const auto& [code, count] : w.errors) {
        codes.push_back(absl::StrCat(GrpcCodeName(code), " ", count));
      }
      absl::StrAppend(&error_text, " (", absl::StrJoin(codes, ", "), ")");
    }
    errors.push_back(std::move(error_text));
  }

  std::string out;
  for (size_t line = 0; line <= levels.size(); ++line) {
    for (const std::vector<std::string>& cells : columns) {
      size_t width = 0;
      for (const std::string& cell : cells) width = std::max(width, cell.size());
      absl::StrAppend(&out, std::string(width - cells[line].size(), ' '), cells[line], "  ");
    }
    absl::StrAppend(&out, errors[line], "\n");
  }
  if (any_unstable) {
    absl::StrAppend(&out,
                    "* not stable within --max_trials windows; the last 3 windows are shown\n");
  }
  return out;
}

std::string ReportCsv(const std::vector<LevelReport>& levels, const ReportOptions& options) {
  const json::Value header_row = Row(LevelReport(), options);
  std::string out = absl::StrCat(absl::StrJoin(header_row.keys(), ","), "\n");
  for (const LevelReport& report : levels) {
    const json::Value row = Row(report, options);
    std::vector<std::string> cells;
    for (const json::Value& value : row.items()) cells.push_back(CsvCell(value));
    absl::StrAppend(&out, absl::StrJoin(cells, ","), "\n");
  }
  return out;
}

std::string ReportJson(const std::vector<LevelReport>& levels, const ReportOptions& options) {
  json::Value array = json::Value::Array();
  for (const LevelReport& report : levels) array.Append(Row(report, options));
  return json::Write(array, 2) + "\n";
}

}  // namespace tensorctl
}  // namespace tensord
