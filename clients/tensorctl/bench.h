// `tensorctl bench`: builds one Predict request from the model's signature (bench_inputs.h),
// runs each load level (bench_load.h) with the optional server-side breakdown
// (bench_server_metrics.h), and reports them (bench_report.h).
#ifndef TENSORD_CLIENTS_TENSORCTL_BENCH_H_
#define TENSORD_CLIENTS_TENSORCTL_BENCH_H_

#include <ostream>

#include "clients/tensorctl/bench_args.h"

namespace tensord {
namespace tensorctl {

// Runs a parsed bench command. The result table goes to `out`; the request's inputs, progress
// and warnings to `err` (progress as one line rewritten with '\r' when `err_is_tty`, else a
// line per window); errors to `err` as "tensorctl: <message>". Returns 0 on success, 1 on
// errors, including a level in which every request failed (after reporting it).
int RunBench(const BenchArgs& args, std::ostream& out, std::ostream& err, bool err_is_tty);

}  // namespace tensorctl
}  // namespace tensord

#endif  // TENSORD_CLIENTS_TENSORCTL_BENCH_H_
