// InitializeTableFromTextFileV2(table_handle, filename): one table entry per line of a text file,
// parsed like TensorFlow's TextFileLineIterator:
//  * lines end at '\n' (a trailing '\r' is dropped); an empty line is an error;
//  * key_index / value_index >= 0 pick a column split by the one-character `delimiter`,
//    -2 (kWholeLine) the whole line, -1 (kLineNumber) the 0-based line number plus `offset`;
//  * vocab_size >= 0 reads only that many lines and fails when the file has fewer;
//  * a table that is already initialised is left as it is (success), once the file could be
//    opened and its first line parsed.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "kernels/lookup/lookup_table.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace {

constexpr int64_t kLineNumber = -1;
constexpr int64_t kWholeLine = -2;

absl::Status FileError(const std::string& filename, int error) {
  const std::string message = absl::StrCat(filename, "; ", std::strerror(error));
  switch (error) {
    case ENOENT:
    case ENOTDIR: return absl::NotFoundError(message);
    case EACCES: return absl::PermissionDeniedError(message);
    case EISDIR: return absl::FailedPreconditionError(message);
    default: return absl::InvalidArgumentError(message);
  }
}

absl::StatusOr<std::string> ReadFile(const std::string& filename) {
  std::FILE* file = std::fopen(filename.c_str(), "rb");
  if (file == nullptr) return FileError(filename, errno);
  std::string contents;
  char buffer[1 << 16];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), file)) > 0) contents.append(buffer, n);
  const int error = std::ferror(file) ? errno : 0;
  std::fclose(file);
  if (error != 0) return FileError(filename, error);
  return contents;
}

struct Line {
  absl::string_view text;  // without the line terminator
  size_t end;              // byte offset just past the terminator (TF's "position")
};

std::vector<Line> SplitLines(absl::string_view contents) {
  std::vector<Line> lines;
  size_t start = 0;
  while (start < contents.size()) {
    size_t newline = contents.find('\n', start);
    const size_t stop = newline == absl::string_view::npos ? contents.size() : newline;
    absl::string_view text = contents.substr(start, stop - start);
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    start = newline == absl::string_view::npos ? contents.size() : newline + 1;
    lines.push_back({text, start});
  }
  return lines;
}

// Stores element i of `t` from column `index` of line `line_number`.
absl::Status SetField(int64_t index, int64_t line_number, int64_t offset, absl::string_view line,
                      const std::vector<absl::string_view>& columns, Tensor* t, int64_t i) {
  if (index == kLineNumber) {
    t->data<int64_t>()[i] = line_number + offset;
    return absl::OkStatus();
  }
  const absl::string_view field = index == kWholeLine ? line : columns[index];
  auto invalid = [&](const char* type) {
    return absl::InvalidArgumentError(
        absl::StrCat("Field ", field, " in line ", line_number, " is not a valid ", type, "."));
  };
  switch (t->dtype()) {
    case DT_INT32: {
      int32_t v;
      if (!absl::SimpleAtoi(field, &v)) return invalid("int32");
      // TensorFlow adds `offset` to int32 fields too (but not to int64 ones).
      t->data<int32_t>()[i] = static_cast<int32_t>(v + offset);
      break;
    }
    case DT_INT64:
      if (!absl::SimpleAtoi(field, &t->data<int64_t>()[i])) return invalid("int64");
      break;
    case DT_FLOAT:
      if (!absl::SimpleAtof(field, &t->data<float>()[i])) return invalid("float");
      break;
    case DT_DOUBLE:
      if (!absl::SimpleAtod(field, &t->data<double>()[i])) return invalid("double");
      break;
    case DT_STRING: t->data<std::string>()[i] = std::string(field); break;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("Data type ", DataTypeString(t->dtype()), " not supported."));
  }
  return absl::OkStatus();
}

bool IsInteger(DataType dtype) { return dtype == DT_INT32 || dtype == DT_INT64; }

class InitializeTableFromTextFileOp : public OpKernel {
 public:
  explicit InitializeTableFromTextFileOp(OpKernelConstruction* c) : OpKernel(c) {
    c->GetAttr("key_index", &key_index_);
    c->GetAttr("value_index", &value_index_);
    c->GetAttr("vocab_size", &vocab_size_);
    c->GetAttr("offset", &offset_);
    std::string delimiter;
    if (c->GetAttr("delimiter", &delimiter)) {
      if (delimiter.size() != 1) {
        c->SetError(absl::InvalidArgumentError(
            absl::StrCat(c->name(), ": delimiter should be only 1 char")));
      } else {
        delimiter_ = delimiter[0];
      }
    }
    if (key_index_ < kWholeLine || value_index_ < kWholeLine || vocab_size_ < -1) {
      c->SetError(absl::InvalidArgumentError(absl::StrCat(
          c->name(), ": key_index and value_index must be >= -2 and vocab_size >= -1")));
    }
  }

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_ASSIGN_OR_RETURN(std::shared_ptr<LookupTable> table, TableFromInput(*c, 0));
    if (table->kind() != LookupTable::Kind::kStatic) {
      return c->InvalidArgument(absl::StrCat("Table ", table->name(), " is not initializable"));
    }
    const Tensor& filename = c->input(1);
    if (filename.dtype() != DT_STRING || filename.dims() != 0) {
      return c->InvalidArgument(absl::StrCat("filename should be a single string, but got ",
                                             filename.shape().DebugString()));
    }
    absl::Status status = Initialize(filename.scalar<std::string>(), table.get());
    return status.ok() ? status : WithNodeName(*c, status);
  }

 private:
  absl::Status CheckDtypes(const LookupTable& table) const {
    const DataType key = table.key_dtype();
    const DataType value = table.value_dtype();
    if (key_index_ == kLineNumber && key != DT_INT64) {
      return absl::InvalidArgumentError(
          absl::StrCat("Key index for line number requires table key dtype of int64, got ",
                       DataTypeString(key)));
    }
    if (key_index_ == kWholeLine && !IsInteger(key) && key != DT_STRING) {
      return absl::InvalidArgumentError(
          absl::StrCat("Key index for whole line requires string or integer key type, got ",
                       DataTypeString(key)));
    }
    if (value_index_ == kLineNumber && value != DT_INT64) {
      return absl::InvalidArgumentError(
          absl::StrCat("Value index for line number requires table value dtype of int64, got ",
                       DataTypeString(value)));
    }
    if (value_index_ == kWholeLine && !IsInteger(value) && value != DT_STRING) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Value index for whole line requires table value dtype of integer or string, got ",
          DataTypeString(value)));
    }
    return absl::OkStatus();
  }

  absl::Status Initialize(const std::string& filename, LookupTable* table) const {
    TENSORD_RETURN_IF_ERROR(CheckDtypes(*table));
    TENSORD_ASSIGN_OR_RETURN(const std::string contents, ReadFile(filename));
    const std::vector<Line> lines = SplitLines(contents);
    const int64_t available = static_cast<int64_t>(lines.size());
    const int64_t n = vocab_size_ < 0 ? available : std::min(available, vocab_size_);
    const int64_t max_index = std::max(key_index_, value_index_);
    Tensor keys(table->key_dtype(), TensorShape{n});
    Tensor values(table->value_dtype(), TensorShape{n});
    std::vector<absl::string_view> columns;
    for (int64_t i = 0; i < n; ++i) {
      const Line& line = lines[i];
      if (line.text.empty()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Invalid content in ", filename, ": empty line found at position ", line.end, "."));
      }
      if (max_index >= 0) {
        columns = absl::StrSplit(line.text, delimiter_);
        if (static_cast<int64_t>(columns.size()) <= max_index) {
          return absl::InvalidArgumentError(
              absl::StrCat("Invalid number of columns in ", filename, " line ", i, " (", line.text,
                           ") : expected at least ", max_index + 1, " got ", columns.size()));
        }
      }
      TENSORD_RETURN_IF_ERROR(SetField(key_index_, i, offset_, line.text, columns, &keys, i));
      TENSORD_RETURN_IF_ERROR(SetField(value_index_, i, offset_, line.text, columns, &values, i));
      if (i == 0 && table->is_initialized()) return absl::OkStatus();
    }
    if (vocab_size_ > available) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Invalid vocab_size in ", filename, ": expected ", vocab_size_, " but got ", available));
    }
    if (n == 0) {
      return absl::OutOfRangeError(absl::StrCat("No lines to read from ", filename));
    }
    absl::Status status = table->Initialize(keys, values);
    // Another run may have initialised the table meanwhile; that is not an error for files.
    if (absl::IsFailedPrecondition(status) && table->is_initialized()) return absl::OkStatus();
    return status;
  }

  int64_t key_index_ = kWholeLine;
  int64_t value_index_ = kLineNumber;
  int64_t vocab_size_ = -1;
  int64_t offset_ = 0;
  char delimiter_ = '\t';
};

TENSORD_REGISTER_KERNEL(
    KernelDef("InitializeTableFromTextFileV2").Device(DeviceType::kCpu).HostMemoryInput(1),
    InitializeTableFromTextFileOp);

}  // namespace
}  // namespace tensord
