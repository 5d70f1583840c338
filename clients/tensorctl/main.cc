// tensorctl: inspect and run TensorFlow SavedModels with tensord's runtime.
// See clients/tensorctl/args.cc (kUsage) or `tensorctl --help`.
#include <iostream>
#include <string>
#include <vector>

#include "clients/tensorctl/cli.h"
#include "runtime/util/process_setup.h"

int main(int argc, char** argv) {
  tensord::SetUpProcess();
  std::vector<std::string> args(argv + 1, argv + argc);
  int rc = tensord::tensorctl::RunCli(args, std::cout, std::cerr);
  std::cout.flush();
  if (!std::cout) {
    std::cerr << "tensorctl: error writing to standard output\n";
    return 1;
  }
  return rc;
}
