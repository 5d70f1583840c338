#include "runtime/exec/op_profile.h"

#include <algorithm>
#include <cstdio>

#include "absl/strings/str_cat.h"

namespace tensord {

void OpProfile::Add(const std::string& op, int64_t nanoseconds) {
  absl::MutexLock lock(&mu_);
  Entry& entry = entries_[op];
  if (entry.op.empty()) entry.op = op;
  ++entry.count;
  entry.total_ns += nanoseconds;
}

std::vector<OpProfile::Entry> OpProfile::Entries() const {
  std::vector<Entry> entries;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [op, entry] : entries_) entries.push_back(entry);
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
    return a.op < b.op;
  });
  return entries;
}

std::string OpProfile::Table(int runs) const {
  runs = std::max(runs, 1);
  const std::vector<Entry> entries = Entries();
  int64_t sum_ns = 0;
  size_t op_width = 7;  // "op type"
  for (const Entry& e : entries) {
    sum_ns += e.total_ns;
    op_width = std::max(op_width, e.op.size());
  }
  auto row = [&](const std::string& op, const std::string& count, const std::string& ms,
                 const std::string& share) {
    char line[512];
    std::snprintf(line, sizeof(line), "%-*s %11s %12s %7s\n", static_cast<int>(op_width),
                  op.c_str(), count.c_str(), ms.c_str(), share.c_str());
    return std::string(line);
  };
  auto fixed = [](double value, int digits) {
    char text[64];
    std::snprintf(text, sizeof(text), "%.*f", digits, value);
    return std::string(text);
  };
  std::string out = row("op type", "kernels/run", "ms/run", "share");
  for (const Entry& e : entries) {
    const double share = sum_ns > 0 ? 100.0 * e.total_ns / sum_ns : 0.0;
    out += row(e.op, fixed(static_cast<double>(e.count) / runs, 1),
               fixed(e.total_ns / 1e6 / runs, 3), fixed(share, 1) + "%");
  }
  int64_t kernels = 0;
  for (const Entry& e : entries) kernels += e.count;
  out += row("total", fixed(static_cast<double>(kernels) / runs, 1),
             fixed(sum_ns / 1e6 / runs, 3), entries.empty() ? "" : "100.0%");
  return out;
}

}  // namespace tensord
