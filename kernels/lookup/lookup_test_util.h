// Helpers for the lookup kernel tests: create table handles and run the table ops through
// RunKernel (which shares one ResourceMgr across the whole test process).
#ifndef TENSORD_KERNELS_LOOKUP_LOOKUP_TEST_UTIL_H_
#define TENSORD_KERNELS_LOOKUP_LOOKUP_TEST_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/testing/kernel_test_util.h"

namespace tensord {
namespace testing {

// A table handle from HashTableV2 / MutableHashTableV2 (all tests share RunKernel's
// ResourceMgr, so each test uses its own shared_name).
inline absl::StatusOr<Tensor> MakeTable(const std::string& op, const std::string& shared_name,
                                        DataType key, DataType value,
                                        const std::string& node_name = "table") {
  auto out = RunKernel(NodeBuilder(op, node_name)
                           .Attr("container", "")
                           .Attr("shared_name", shared_name)
                           .Attr("use_node_name_sharing", false)
                           .Attr("key_dtype", key)
                           .Attr("value_dtype", value)
                           .Build(),
                       {});
  if (!out.ok()) return out.status();
  return (*out)[0];
}

inline Tensor Table(const std::string& op, const std::string& shared_name, DataType key,
                    DataType value) {
  auto table = MakeTable(op, shared_name, key, value);
  EXPECT_TRUE(table.ok()) << table.status();
  return table.ok() ? *table : Tensor();
}

// Runs a two-argument table op (InitializeTableV2, LookupTableImportV2, LookupTableInsertV2).
inline absl::Status Update(const std::string& op, const Tensor& table, const Tensor& keys,
                           const Tensor& values) {
  NodeBuilder b(op, "update");
  if (op == "InitializeTableV2") {
    b.Attr("Tkey", keys.dtype()).Attr("Tval", values.dtype());
  } else {
    b.Attr("Tin", keys.dtype()).Attr("Tout", values.dtype());
  }
  return RunKernel(b.Build(), {table, keys, values}).status();
}

inline absl::StatusOr<Tensor> Find(const Tensor& table, const Tensor& keys,
                                   const Tensor& default_value,
                                   DeviceType device = DeviceType::kCpu) {
  auto out = RunKernel(NodeBuilder("LookupTableFindV2", "find")
                           .Attr("Tin", keys.dtype())
                           .Attr("Tout", default_value.dtype())
                           .Build(),
                       {table, keys, default_value}, device);
  if (!out.ok()) return out.status();
  return (*out)[0];
}

inline int64_t Size(const Tensor& table) {
  auto out = RunKernel(NodeBuilder("LookupTableSizeV2", "size").Build(), {table});
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? (*out)[0].scalar<int64_t>() : -1;
}

inline Tensor Strings(const std::vector<std::string>& values, const std::vector<int64_t>& dims) {
  return AsTensor<std::string>(values, dims);
}
inline Tensor Int64s(const std::vector<int64_t>& values, const std::vector<int64_t>& dims) {
  return AsTensor<int64_t>(values, dims);
}

inline void ExpectFind(const Tensor& table, const Tensor& keys, const Tensor& default_value,
                       const Tensor& want) {
  for (DeviceType device : TestDevices()) {
    auto got = Find(table, keys, default_value, device);
    ASSERT_TRUE(got.ok()) << got.status();
    ExpectTensorEqual(*got, want);
  }
}

}  // namespace testing
}  // namespace tensord

#endif  // TENSORD_KERNELS_LOOKUP_LOOKUP_TEST_UTIL_H_
