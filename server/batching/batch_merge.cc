#include "server/batching/batch_merge.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "runtime/framework/dispatch_numeric.h"

namespace tensord {
namespace {

std::vector<int64_t> Strides(absl::Span<const int64_t> dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) {
    strides[i] = strides[i + 1] * dims[i + 1];
  }
  return strides;
}

// Copies the block `src` (dims `src_dims`) into the top-left corner of `dst`.
template <typename T>
void CopyBlock(const T* src, const int64_t* src_dims, const int64_t* src_strides, T* dst,
               const int64_t* dst_strides, int rank) {
  if (rank == 1) {
    std::copy(src, src + src_dims[0], dst);
    return;
  }
  for (int64_t i = 0; i < src_dims[0]; ++i) {
    CopyBlock(src + i * src_strides[0], src_dims + 1, src_strides + 1, dst + i * dst_strides[0],
              dst_strides + 1, rank - 1);
  }
}

// Fills `out` (dims out_dims) from the parts stacked along dim 0, padding with `pad`, then
// repeats row 0 into the rows past the parts.
template <typename T>
void Fill(const std::vector<const Tensor*>& parts, const T& pad, const Tensor& out) {
  T* dst = out.data<T>();
  std::fill(dst, dst + out.NumElements(), pad);
  const absl::Span<const int64_t> out_dims = out.shape().dim_sizes();
  const std::vector<int64_t> out_strides = Strides(out_dims);
  const int rank = static_cast<int>(out_dims.size());
  int64_t row = 0;
  for (const Tensor* part : parts) {
    const absl::Span<const int64_t> dims = part->shape().dim_sizes();
    const std::vector<int64_t> strides = Strides(dims);
    if (part->NumElements() > 0) {
      CopyBlock(part->data<T>(), dims.data(), strides.data(), dst + row * out_strides[0],
                out_strides.data(), rank);
    }
    row += dims[0];
  }
  const int64_t row_size = out_strides[0];
  for (int64_t r = row; row > 0 && r < out_dims[0]; ++r) {
    std::copy(dst, dst + row_size, dst + r * row_size);
  }
}

}  // namespace

absl::StatusOr<int64_t> BatchRows(const TensorMap& inputs) {
  if (inputs.empty()) return absl::InvalidArgumentError("a batched request needs inputs");
  int64_t rows = -1;
  for (const auto& [alias, tensor] : inputs) {
    if (tensor.dims() == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("input ", alias, " is a scalar; batching needs a batch dimension"));
    }
    if (rows >= 0 && tensor.dim_size(0) != rows) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Batching needs inputs with equal 0th-dimension size; input ", alias, " has ",
          tensor.dim_size(0), ", another ", rows));
    }
    rows = tensor.dim_size(0);
  }
  return rows;
}

bool SameRanks(const TensorMap& a, const TensorMap& b) {
  if (a.size() != b.size()) return false;
  for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib) {
    if (ia->first != ib->first || ia->second.dtype() != ib->second.dtype() ||
        ia->second.dims() != ib->second.dims()) {
      return false;
    }
  }
  return true;
}

bool SameInnerShapes(const TensorMap& a, const TensorMap& b) {
  if (!SameRanks(a, b)) return false;
  for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib) {
    for (int d = 1; d < ia->second.dims(); ++d) {
      if (ia->second.dim_size(d) != ib->second.dim_size(d)) return false;
    }
  }
  return true;
}

absl::StatusOr<TensorMap> MergeInputs(const std::vector<const TensorMap*>& parts,
                                      int64_t padded_rows, bool pad_inner, double pad_value) {
  if (parts.empty()) return absl::InvalidArgumentError("no requests to merge");
  TensorMap merged;
  for (const auto& [alias, first] : *parts[0]) {
    std::vector<const Tensor*> tensors;
    std::vector<int64_t> dims(first.shape().dim_sizes().begin(), first.shape().dim_sizes().end());
    dims[0] = 0;
    for (const TensorMap* part : parts) {
      auto it = part->find(alias);
      if (it == part->end() || it->second.dtype() != first.dtype() ||
          it->second.dims() != first.dims()) {
        return absl::InvalidArgumentError(
            absl::StrCat("requests in one batch differ in input ", alias));
      }
      const Tensor& t = it->second;
      for (int d = 1; d < t.dims(); ++d) {
        if (t.dim_size(d) != dims[d] && !pad_inner) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Tensors with name '", alias,
              "' from different requests have different shapes and padding is turned off"));
        }
        dims[d] = std::max(dims[d], t.dim_size(d));
      }
      dims[0] += t.dim_size(0);
      tensors.push_back(&t);
    }
    if (padded_rows < dims[0]) {
      return absl::InternalError("padded batch is smaller than its requests");
    }
    dims[0] = padded_rows;
    Tensor out(first.dtype(), TensorShape(dims));
    bool handled = DispatchNumeric(first.dtype(), [&](auto tag) {
      using T = decltype(tag);
      Fill<T>(tensors, static_cast<T>(pad_value), out);
    });
    if (!handled && first.dtype() == DT_STRING) {
      Fill<std::string>(tensors, std::string(), out);
      handled = true;
    }
    if (!handled) {
      return absl::UnimplementedError(absl::StrCat("input ", alias, " of type ",
                                                   DataTypeString(first.dtype()),
                                                   " cannot be batched"));
    }
    merged.emplace(alias, std::move(out));
  }
  return merged;
}

absl::StatusOr<TensorMap> SliceOutputs(const TensorMap& outputs, int64_t batch_rows,
                                       int64_t begin, int64_t end) {
  TensorMap sliced;
  for (const auto& [alias, tensor] : outputs) {
    if (tensor.dims() == 0 || tensor.dim_size(0) != batch_rows) {
      return absl::InternalError(absl::StrCat(
          "output ", alias, " has shape ", tensor.shape().DebugString(),
          ", not a batch dimension of ", batch_rows, "; the signature cannot be batched"));
    }
    sliced.emplace(alias, tensor.Slice(begin, end));
  }
  return sliced;
}

absl::StatusOr<TensorMap> ConcatOutputs(const std::vector<TensorMap>& pieces) {
  if (pieces.size() == 1) return pieces[0];
  std::vector<const TensorMap*> parts;
  int64_t rows = 0;
  for (const TensorMap& piece : pieces) {
    parts.push_back(&piece);
    if (!piece.empty()) rows += piece.begin()->second.dim_size(0);
  }
  return MergeInputs(parts, rows, /*pad_inner=*/false, 0);
}

}  // namespace tensord
