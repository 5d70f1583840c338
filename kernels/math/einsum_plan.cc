#include "kernels/math/einsum_plan.h"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "kernels/math/transpose_util.h"

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

Labels Concat(std::initializer_list<const Labels*> parts) {
  Labels all;
  for (const Labels* p : parts) all.insert(all.end(), p->begin(), p->end());
  return all;
}

// An operand seen through unique labels (diagonals folded into strides).
struct View {
  Labels labels;
  std::vector<int64_t> dims;
  std::vector<int64_t> strides;

  int64_t size(int label) const {
    return dims[std::find(labels.begin(), labels.end(), label) - labels.begin()];
  }
  int64_t size(const Labels& group) const {
    int64_t s = 1;
    for (int label : group) s *= size(label);
    return s;
  }
  // True when the view is a dense row-major tensor with labels in `order`.
  bool DenseIn(const Labels& order) const {
    if (order != labels) return false;
    return strides == DenseStrides(dims);
  }
};

// `v` made dense with labels `order`, summing over its labels not in `order`.
EinsumLayout LayoutFor(const View& v, const Labels& order) {
  Labels summed;
  for (int label : v.labels) {
    if (!Contains(order, label)) summed.push_back(label);
  }
  EinsumLayout layout;
  layout.copy_needed = !summed.empty() || !v.DenseIn(order);
  auto add = [&](int label) {
    const size_t index = std::find(v.labels.begin(), v.labels.end(), label) - v.labels.begin();
    layout.dims.push_back(v.dims[index]);
    layout.strides.push_back(v.strides[index]);
  };
  for (int label : order) {
    add(label);
    layout.rows *= layout.dims.back();
  }
  for (int label : summed) {
    add(label);
    layout.cols *= layout.dims.back();
  }
  return layout;
}

// True when `second` is the better layout for `v`: v already has it (and not `first`), or a
// copy is needed and `second` keeps v's innermost dim innermost, so the copy moves whole runs.
bool PreferSecondLayout(const View& v, const Labels& first, const Labels& second) {
  if (v.DenseIn(first)) return false;
  if (v.DenseIn(second)) return true;
  if (v.labels.empty() || first.empty()) return false;
  const int innermost = v.labels.back();
  return first.back() != innermost && second.back() == innermost;
}

void PlanProduct(View x, View y, const Labels& out_labels, EinsumPlan* plan) {
  Labels batch, free_x, free_y, contract;
  for (int label : out_labels) {
    const bool in_x = Contains(x.labels, label);
    const bool in_y = Contains(y.labels, label);
    if (in_x && in_y) {
      batch.push_back(label);
    } else if (in_x) {
      free_x.push_back(label);
    } else if (in_y) {
      free_y.push_back(label);
    }
  }
  for (int label : x.labels) {
    if (Contains(y.labels, label) && !Contains(out_labels, label)) contract.push_back(label);
  }
  // Computing y·x gives [batch, free_y, free_x]; prefer it when that is the output order.
  if (Concat({&batch, &free_x, &free_y}) != out_labels &&
      Concat({&batch, &free_y, &free_x}) == out_labels) {
    std::swap(x, y);
    std::swap(free_x, free_y);
    plan->left = 1;
  }

  MatMulDims& dims = plan->dims;
  dims.m = x.size(free_x);
  dims.k = x.size(contract);
  dims.n = y.size(free_y);
  plan->batches = x.size(batch);

  // Each operand may be laid out in either of two orders (the GEMM transposes the second).
  const Labels x_order = Concat({&batch, &free_x, &contract});
  const Labels x_order_t = Concat({&batch, &contract, &free_x});
  dims.transpose_a = PreferSecondLayout(x, x_order, x_order_t);
  plan->x = LayoutFor(x, dims.transpose_a ? x_order_t : x_order);
  const Labels y_order = Concat({&batch, &contract, &free_y});
  const Labels y_order_t = Concat({&batch, &free_y, &contract});
  dims.transpose_b = PreferSecondLayout(y, y_order, y_order_t);
  plan->y = LayoutFor(y, dims.transpose_b ? y_order_t : y_order);

  const Labels result_labels = Concat({&batch, &free_x, &free_y});
  if (result_labels == out_labels) return;
  View r;
  r.labels = result_labels;
  for (int label : batch) r.dims.push_back(x.size(label));
  for (int label : free_x) r.dims.push_back(x.size(label));
  for (int label : free_y) r.dims.push_back(y.size(label));
  r.strides = DenseStrides(r.dims);
  plan->result = LayoutFor(r, out_labels);
}

}  // namespace

absl::StatusOr<EinsumPlan> MakeEinsumPlan(const OpKernelContext* c,
                                          const std::string& equation_attr, int num_inputs) {
  if (c->num_inputs() != num_inputs) {
    return c->InvalidArgument(
        absl::StrCat("expected ", num_inputs, " inputs, got ", c->num_inputs()));
  }

  // ---- parse ----
  std::string equation = equation_attr;
  equation.erase(std::remove(equation.begin(), equation.end(), ' '), equation.end());
  std::vector<std::string> sides = absl::StrSplit(equation, "->");
  if (sides.size() != 2) {
    return c->InvalidArgument(
        absl::StrCat("Expecting exactly one '->' in einsum equation: ", equation_attr));
  }
  std::vector<std::string> input_subs = absl::StrSplit(sides[0], ',');
  if (input_subs.size() != 1 && input_subs.size() != 2) {
    return c->InvalidArgument(absl::StrCat("Expecting 1 or 2 input subscripts in equation '",
                                           equation_attr, "' but got: ", input_subs.size()));
  }
  if (static_cast<int>(input_subs.size()) != num_inputs) {
    return c->InvalidArgument(absl::StrCat("equation '", equation_attr, "' has ",
                                           input_subs.size(), " input subscripts but N is ",
                                           num_inputs));
  }
  const int n = num_inputs;
  std::vector<Labels> tokens(n);
  std::vector<int> ellipsis_rank(n, 0);
  int widest = 0;
  for (int i = 0; i < n; ++i) {
    auto parsed = ParseSubscript(input_subs[i], equation_attr);
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
  auto out_tokens = ParseSubscript(sides[1], equation_attr);
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
  EinsumPlan plan;
  plan.num_operands = n;
  for (size_t j = 0; j < out_labels.size(); ++j) {
    const int label = out_labels[j];
    if (label_size[label] < 0) {
      return c->InvalidArgument(absl::StrCat("output subscript of '", equation_attr,
                                             "' has a label that is in no input"));
    }
    if (std::count(out_labels.begin(), out_labels.end(), label) > 1) {
      return c->InvalidArgument(
          absl::StrCat("output subscript of '", equation_attr, "' repeats a label"));
    }
    plan.output_shape.AddDim(label_size[label]);
  }

  // ---- views ----
  std::vector<View> views(n);
  for (int i = 0; i < n; ++i) {
    const Tensor& t = c->input(i);
    const std::vector<int64_t> dense = DenseStrides(t.shape().dim_sizes());
    View& v = views[i];
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

  if (n == 1) {
    plan.x = LayoutFor(views[0], out_labels);
  } else {
    PlanProduct(std::move(views[0]), std::move(views[1]), out_labels, &plan);
  }
  return plan;
}

}  // namespace math
}  // namespace tensord
