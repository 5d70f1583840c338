// Einsum with one or two operands and an explicit "->" output, e.g. "abc,cd->abd",
// "abcd,aecd->acbe", "...ij,...jk->...ik", "ii->i".
//
// Each operand is first viewed through its labels: a label repeated within an operand selects
// the diagonal (its strides add up), and a broadcast ellipsis dim of size 1 is dropped when the
// other side has it larger. Labels are then classified: in both operands and the output =
// batch, in both but not the output = contracted, in one operand and the output = free, in one
// operand only = summed out while that operand is laid out. Each operand is copied (only when
// its layout is not already right) to [batch, free, contracted] or [batch, contracted, free],
// multiplied with the batched GEMM, and the [batch, free_x, free_y] result is transposed into
// the output order when that differs.
#include <algorithm>
#include <array>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "kernels/math/matmul_util.h"
#include "kernels/math/op_util.h"
#include "kernels/math/transpose_util.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/framework/tensor_eigen.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace math {
namespace {

// Labels 0..51 are letters; ellipsis dim j (of the widest ellipsis) is kEllipsisLabel + j.
constexpr int kEllipsisLabel = 52;
constexpr int kEllipsisToken = -1;

using Labels = std::vector<int>;

absl::StatusOr<Labels> ParseSubscript(absl::string_view s, absl::string_view equation) {
  Labels tokens;
  for (size_t i = 0; i < s.size(); ++i) {
    const char ch = s[i];
    if (ch >= 'a' && ch <= 'z') {
      tokens.push_back(ch - 'a');
    } else if (ch >= 'A' && ch <= 'Z') {
      tokens.push_back(26 + ch - 'A');
    } else if (s.substr(i, 3) == "...") {
      if (std::count(tokens.begin(), tokens.end(), kEllipsisToken) > 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("more than one ellipsis in a subscript of equation: ", equation));
      }
      tokens.push_back(kEllipsisToken);
      i += 2;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("invalid character '", std::string(1, ch), "' in equation: ", equation));
    }
  }
  return tokens;
}

// Replaces the ellipsis token by `count` labels for the trailing dims of the widest ellipsis.
Labels ExpandEllipsis(const Labels& tokens, int count, int widest) {
  Labels labels;
  for (int t : tokens) {
    if (t != kEllipsisToken) {
      labels.push_back(t);
      continue;
    }
    for (int j = widest - count; j < widest; ++j) labels.push_back(kEllipsisLabel + j);
  }
  return labels;
}

bool Contains(const Labels& labels, int label) {
  return std::find(labels.begin(), labels.end(), label) != labels.end();
}

// An operand seen through unique labels (diagonals folded into strides).
template <typename T>
struct View {
  const T* data = nullptr;
  Labels labels;
  std::vector<int64_t> dims;
  std::vector<int64_t> strides;

  int64_t size(int label) const {
    return dims[std::find(labels.begin(), labels.end(), label) - labels.begin()];
  }
  // True when the view is a dense row-major tensor with labels in `order`.
  bool DenseIn(const Labels& order) const {
    if (order != labels) return false;
    return strides == DenseStrides(dims);
  }
};

template <typename T>
class EinsumOp : public OpKernel {
 public:
  explicit EinsumOp(OpKernelConstruction* c) : OpKernel(c) {
    c->GetAttr("equation", &equation_);
    c->GetAttr("N", &num_inputs_);
  }

  absl::Status Compute(OpKernelContext* c) const override {
    if (c->num_inputs() != num_inputs_) {
      return c->InvalidArgument(
          absl::StrCat("expected ", num_inputs_, " inputs, got ", c->num_inputs()));
    }
    for (int i = 0; i < num_inputs_; ++i) {
      TENSORD_RETURN_IF_ERROR(CheckInputType(c, i, DataTypeToEnum<T>::value));
    }

    // ---- parse ----
    std::string equation = equation_;
    equation.erase(std::remove(equation.begin(), equation.end(), ' '), equation.end());
    std::vector<std::string> sides = absl::StrSplit(equation, "->");
    if (sides.size() != 2) {
      return c->InvalidArgument(
          absl::StrCat("Expecting exactly one '->' in einsum equation: ", equation_));
    }
    std::vector<std::string> input_subs = absl::StrSplit(sides[0], ',');
    if (input_subs.size() != 1 && input_subs.size() != 2) {
      return c->InvalidArgument(absl::StrCat("Expecting 1 or 2 input subscripts in equation '",
                                             equation_, "' but got: ", input_subs.size()));
    }
    if (static_cast<int>(input_subs.size()) != num_inputs_) {
      return c->InvalidArgument(absl::StrCat("equation '", equation_, "' has ", input_subs.size(),
                                             " input subscripts but N is ", num_inputs_));
    }
    const int n = num_inputs_;
    std::vector<Labels> tokens(n);
    std::vector<int> ellipsis_rank(n, 0);
    int widest = 0;
    for (int i = 0; i < n; ++i) {
      auto parsed = ParseSubscript(input_subs[i], equation_);
      if (!parsed.ok()) return c->InvalidArgument(parsed.status().message());
      tokens[i] = *std::move(parsed);
      const int named = static_cast<int>(std::count_if(tokens[i].begin(), tokens[i].end(),
                                                       [](int t) { return t != kEllipsisToken; }));
      const int rank = c->input(i).dims();
      const bool has_ellipsis = Contains(tokens[i], kEllipsisToken);
      if (has_ellipsis ? rank < named : rank != named) {
        return c->InvalidArgument(absl::StrCat("Input ", i, " to einsum has rank ", rank,
                                               " but subscript '", input_subs[i], "' expects ",
                                               named, has_ellipsis ? " or more" : ""));
      }
      ellipsis_rank[i] = rank - named;
      widest = std::max(widest, ellipsis_rank[i]);
    }
    auto out_tokens = ParseSubscript(sides[1], equation_);
    if (!out_tokens.ok()) return c->InvalidArgument(out_tokens.status().message());
    const Labels out_labels = ExpandEllipsis(*out_tokens, widest, widest);

    // ---- label sizes ----
    std::vector<Labels> labels(n);
    std::array<int64_t, kEllipsisLabel + 64> label_size;
    label_size.fill(-1);
    if (widest > 64) return c->InvalidArgument("too many ellipsis dims");
    for (int i = 0; i < n; ++i) {
      labels[i] = ExpandEllipsis(tokens[i], ellipsis_rank[i], widest);
      const Tensor& t = c->input(i);
      for (int d = 0; d < t.dims(); ++d) {
        const int label = labels[i][d];
        const int64_t size = t.dim_size(d);
        int64_t& known = label_size[label];
        const bool broadcastable = label >= kEllipsisLabel && (known == 1 || size == 1);
        if (known < 0 || (broadcastable && known == 1)) {
          known = size;
        } else if (known != size && !broadcastable) {
          return c->InvalidArgument(absl::StrCat("Expected dimension ", known, " at axis ", d,
                                                 " of the input shaped ", t.shape().DebugString(),
                                                 " but got dimension ", size));
        }
      }
    }
    TensorShape out_shape;
    for (size_t j = 0; j < out_labels.size(); ++j) {
      const int label = out_labels[j];
      if (label_size[label] < 0) {
        return c->InvalidArgument(
            absl::StrCat("output subscript of '", equation_, "' has a label that is in no input"));
      }
      if (std::count(out_labels.begin(), out_labels.end(), label) > 1) {
        return c->InvalidArgument(
            absl::StrCat("output subscript of '", equation_, "' repeats a label"));
      }
      out_shape.AddDim(label_size[label]);
    }

    // ---- views ----
    std::vector<View<T>> views(n);
    for (int i = 0; i < n; ++i) {
      const Tensor& t = c->input(i);
      const std::vector<int64_t> dense = DenseStrides(t.shape().dim_sizes());
      View<T>& v = views[i];
      v.data = t.data<T>();
      for (int d = 0; d < t.dims(); ++d) {
        const int label = labels[i][d];
        // A size-1 ellipsis dim broadcast against a larger one carries nothing.
        if (t.dim_size(d) == 1 && label_size[label] > 1) continue;
        auto it = std::find(v.labels.begin(), v.labels.end(), label);
        if (it == v.labels.end()) {
          v.labels.push_back(label);
          v.dims.push_back(t.dim_size(d));
          v.strides.push_back(dense[d]);
        } else {
          v.strides[it - v.labels.begin()] += dense[d];
        }
      }
    }

    Tensor* output = c->allocate_output(0, c->input(0).dtype(), out_shape);
    if (output->NumElements() == 0) return absl::OkStatus();
    if (n == 1) {
      Materialize(c, views[0], out_labels, output->data<T>());
      return absl::OkStatus();
    }
    return ComputeBinary(c, views[0], views[1], out_labels, output->data<T>());
  }

 private:
  // Writes `v` as a dense tensor with labels `order`, summing over its labels not in `order`.
  // Returns a pointer to the result: v.data itself when no work is needed, else `scratch`
  // (resized) or `dest` when given.
  static const T* Materialize(const OpKernelContext* c, const View<T>& v, const Labels& order,
                              T* dest, std::vector<T>* scratch = nullptr) {
    Labels summed;
    for (int label : v.labels) {
      if (!Contains(order, label)) summed.push_back(label);
    }
    if (summed.empty() && dest == nullptr && v.DenseIn(order)) return v.data;
    int64_t rows = 1, cols = 1;
    std::vector<int64_t> dims, strides;
    auto add = [&](int label) {
      const size_t index = std::find(v.labels.begin(), v.labels.end(), label) - v.labels.begin();
      dims.push_back(v.dims[index]);
      strides.push_back(v.strides[index]);
    };
    for (int label : order) {
      add(label);
      rows *= dims.back();
    }
    for (int label : summed) {
      add(label);
      cols *= dims.back();
    }
    if (dest == nullptr) {
      scratch->resize(rows);
      dest = scratch->data();
    }
    if (summed.empty()) {
      StridedCopy(c->eigen_cpu_device(), v.data, dims, strides, sizeof(T), dest);
      return dest;
    }
    std::vector<T> gathered(rows * cols);
    StridedCopy(c->eigen_cpu_device(), v.data, dims, strides, sizeof(T), gathered.data());
    for (int64_t r = 0; r < rows; ++r) {
      const T* row = gathered.data() + r * cols;
      dest[r] = std::accumulate(row, row + cols, T(0));
    }
    return dest;
  }

  // True when `second` is the better layout for `v`: v already has it (and not `first`), or a
  // copy is needed and `second` keeps v's innermost dim innermost, so the copy moves whole runs.
  static bool PreferSecondLayout(const View<T>& v, const Labels& first, const Labels& second) {
    if (v.DenseIn(first)) return false;
    if (v.DenseIn(second)) return true;
    if (v.labels.empty() || first.empty()) return false;
    const int innermost = v.labels.back();
    return first.back() != innermost && second.back() == innermost;
  }

  absl::Status ComputeBinary(const OpKernelContext* c, View<T> x, View<T> y,
                             const Labels& out_labels, T* out) const {
    auto classify = [&](Labels* batch, Labels* free_x, Labels* free_y, Labels* contract) {
      for (int label : out_labels) {
        const bool in_x = Contains(x.labels, label);
        const bool in_y = Contains(y.labels, label);
        if (in_x && in_y) {
          batch->push_back(label);
        } else if (in_x) {
          free_x->push_back(label);
        } else if (in_y) {
          free_y->push_back(label);
        }
      }
      for (int label : x.labels) {
        if (Contains(y.labels, label) && !Contains(out_labels, label)) contract->push_back(label);
      }
    };
    Labels batch, free_x, free_y, contract;
    classify(&batch, &free_x, &free_y, &contract);
    auto concat = [](std::initializer_list<const Labels*> parts) {
      Labels all;
      for (const Labels* p : parts) all.insert(all.end(), p->begin(), p->end());
      return all;
    };
    // Computing y·x gives [batch, free_y, free_x]; prefer it when that is the output order.
    if (concat({&batch, &free_x, &free_y}) != out_labels &&
        concat({&batch, &free_y, &free_x}) == out_labels) {
      std::swap(x, y);
      std::swap(free_x, free_y);
    }

    auto size_of = [](const View<T>& v, const Labels& group) {
      int64_t s = 1;
      for (int label : group) s *= v.size(label);
      return s;
    };
    MatMulDims dims;
    dims.m = size_of(x, free_x);
    dims.k = size_of(x, contract);
    dims.n = size_of(y, free_y);
    const int64_t batches = size_of(x, batch);

    // Each operand may be laid out in either of two orders (the GEMM transposes the second).
    std::vector<T> x_scratch, y_scratch;
    const Labels x_order = concat({&batch, &free_x, &contract});
    const Labels x_order_t = concat({&batch, &contract, &free_x});
    dims.transpose_a = PreferSecondLayout(x, x_order, x_order_t);
    const T* xd = Materialize(c, x, dims.transpose_a ? x_order_t : x_order, nullptr, &x_scratch);
    const Labels y_order = concat({&batch, &contract, &free_y});
    const Labels y_order_t = concat({&batch, &free_y, &contract});
    dims.transpose_b = PreferSecondLayout(y, y_order, y_order_t);
    const T* yd = Materialize(c, y, dims.transpose_b ? y_order_t : y_order, nullptr, &y_scratch);

    const Labels result_labels = concat({&batch, &free_x, &free_y});
    std::vector<T> result;
    T* rd = out;
    if (result_labels != out_labels) {
      result.resize(batches * dims.m * dims.n);
      rd = result.data();
    }
    std::vector<int64_t> index(batches);
    std::iota(index.begin(), index.end(), 0);
    BatchMatMul(c->eigen_cpu_device(), dims, xd, yd, rd, index, index);
    if (rd == out) return absl::OkStatus();

    // Transpose [batch, free_x, free_y] into the output order.
    View<T> r;
    r.data = rd;
    r.labels = result_labels;
    for (int label : batch) r.dims.push_back(x.size(label));
    for (int label : free_x) r.dims.push_back(x.size(label));
    for (int label : free_y) r.dims.push_back(y.size(label));
    r.strides = DenseStrides(r.dims);
    Materialize(c, r, out_labels, out);
    return absl::OkStatus();
  }

  std::string equation_;
  int num_inputs_ = 0;
};

#define REGISTER_EINSUM(T)                                                                        \
  TENSORD_REGISTER_KERNEL(                                                                        \
      KernelDef("Einsum").Device(DeviceType::kCpu).TypeConstraint("T", DataTypeToEnum<T>::value), \
      EinsumOp<T>)

REGISTER_EINSUM(float);
REGISTER_EINSUM(double);
REGISTER_EINSUM(int32_t);
#undef REGISTER_EINSUM

}  // namespace
}  // namespace math
}  // namespace tensord
