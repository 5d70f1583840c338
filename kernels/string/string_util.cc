#include "kernels/string/string_util.h"

#include <limits>
#include <mutex>
#include <string>

#include "absl/strings/str_cat.h"
#include "runtime/framework/parallel_for.h"
#include "runtime/framework/tensor_eigen.h"

namespace tensord {
namespace string_ops {

void SetAttrError(OpKernelConstruction* c, absl::string_view message) {
  c->SetError(absl::InvalidArgumentError(absl::StrCat(c->name(), ": ", message)));
}

CharUnit GetUnitAttr(OpKernelConstruction* c) {
  std::string unit;
  if (!c->GetAttr("unit", &unit)) return CharUnit::kByte;
  if (unit == "UTF8_CHAR") return CharUnit::kUtf8Char;
  if (unit != "BYTE") {
    SetAttrError(c, absl::StrCat("Value for attr 'unit' of \"", unit,
                                 "\" is not in the list of allowed values: \"BYTE\", "
                                 "\"UTF8_CHAR\""));
  }
  return CharUnit::kByte;
}

absl::Status CheckInputType(const OpKernelContext& c, int index, DataType want) {
  if (index >= c.num_inputs()) {
    return c.InvalidArgument(absl::StrCat("missing input ", index));
  }
  const DataType got = c.input(index).dtype();
  if (got != want) {
    return c.InvalidArgument(absl::StrCat("input ", index, " must be ", DataTypeString(want),
                                          ", got ", DataTypeString(got)));
  }
  return absl::OkStatus();
}

absl::Status ParallelForWithStatus(const OpKernelContext& c, int64_t n, double cost_per_element,
                                   const std::function<absl::Status(int64_t)>& fn) {
  std::mutex mu;
  int64_t first_error_index = std::numeric_limits<int64_t>::max();
  absl::Status first_error;
  auto shard = [&](Eigen::Index begin, Eigen::Index end) {
    for (Eigen::Index i = begin; i < end; ++i) {
      absl::Status status = fn(i);
      if (status.ok()) continue;
      std::lock_guard<std::mutex> lock(mu);
      if (i < first_error_index) {
        first_error_index = i;
        first_error = std::move(status);
      }
      return;  // later elements of this shard cannot produce a lower index
    }
  };
  if (n <= 0) return absl::OkStatus();
  ParallelFor(c.eigen_cpu_device(), n, Eigen::TensorOpCost(0, 0, cost_per_element), shard);
  return first_error;
}

double AverageStringLength(const Tensor& strings) {
  const int64_t n = strings.NumElements();
  if (n == 0) return 0;
  const std::string* s = strings.data<std::string>();
  double total = 0;
  for (int64_t i = 0; i < n; ++i) total += static_cast<double>(s[i].size());
  return total / static_cast<double>(n);
}

}  // namespace string_ops
}  // namespace tensord
