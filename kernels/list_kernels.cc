// Prints the op type of every registered kernel, one per line, sorted and deduplicated.
// tests/models/gen_op_defs.py reads it to refresh runtime/graph/builtin_op_defs.pbtxt.
#include <iostream>
#include <set>
#include <string>

#include "runtime/framework/kernel_registry.h"

int main() {
  std::set<std::string> ops;
  for (const std::string& entry : tensord::KernelRegistry::Global().List()) {
    ops.insert(entry.substr(0, entry.find(' ')));
  }
  for (const std::string& op : ops) std::cout << op << "\n";
  return 0;
}
