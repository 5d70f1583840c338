// tensorctl's commands on top of the SavedModel loader.
#ifndef TENSORD_CLIENTS_TENSORCTL_CLI_H_
#define TENSORD_CLIENTS_TENSORCTL_CLI_H_

#include <ostream>
#include <string>
#include <vector>

namespace tensord {
namespace tensorctl {

// Runs `tensorctl ARGS...` (argv without the program name). Results go to `out`; errors to
// `err` as "tensorctl: <message>". Returns the exit status: 0 ok, 1 error, 2 usage error.
int RunCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace tensorctl
}  // namespace tensord

#endif  // TENSORD_CLIENTS_TENSORCTL_CLI_H_
