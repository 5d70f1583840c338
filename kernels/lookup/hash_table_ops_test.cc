// Expected values and messages were checked against TensorFlow 2.21 (tf.raw_ops on CPU).
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/lookup/lookup_test_util.h"
#include "kernels/testing/kernel_test_util.h"
#include "runtime/framework/resource.h"

namespace tensord {
namespace {

using testing::AsTensor;
using testing::ExpectFind;
using testing::Find;
using testing::Int64s;
using testing::MakeTable;
using testing::Size;
using testing::Strings;
using testing::Table;
using testing::Update;

TEST(HashTableTest, InitializeThenFind) {
  Tensor t = Table("HashTableV2", "init_then_find", DT_STRING, DT_INT64);
  auto before = Find(t, Strings({"a"}, {1}), Tensor::Scalar<int64_t>(-1));
  EXPECT_TRUE(absl::IsFailedPrecondition(before.status())) << before.status();
  EXPECT_NE(before.status().message().find("Table not initialized."), std::string::npos);
  EXPECT_EQ(Size(t), 0);

  ASSERT_TRUE(
      Update("InitializeTableV2", t, Strings({"a", "b", "c"}, {3}), Int64s({1, 2, 3}, {3})).ok());
  EXPECT_EQ(Size(t), 3);
  ExpectFind(t, Strings({"a", "x", "c", "b"}, {2, 2}), Tensor::Scalar<int64_t>(-1),
             Int64s({1, -1, 3, 2}, {2, 2}));
  ExpectFind(t, Tensor::Scalar<std::string>("b"), Tensor::Scalar<int64_t>(-1),
             Tensor::Scalar<int64_t>(2));
  ExpectFind(t, Strings({}, {0}), Tensor::Scalar<int64_t>(-1), Int64s({}, {0}));
  // A static table accepts a default of the keys' shape but only uses its first element.
  ExpectFind(t, Strings({"a", "x", "y", "b"}, {2, 2}), Int64s({10, 11, 12, 13}, {2, 2}),
             Int64s({1, 10, 10, 2}, {2, 2}));
}

TEST(HashTableTest, FindArgumentErrors) {
  Tensor t = Table("HashTableV2", "find_errors", DT_STRING, DT_INT64);
  ASSERT_TRUE(Update("InitializeTableV2", t, Strings({"a"}, {1}), Int64s({1}, {1})).ok());
  auto bad_default = Find(t, Strings({"a", "x"}, {2}), Int64s({10}, {1}));
  EXPECT_TRUE(absl::IsInvalidArgument(bad_default.status()));
  EXPECT_NE(bad_default.status().message().find(
                "find: Expected shape [] or [2] for default value, got [1]"),
            std::string::npos)
      << bad_default.status();
  auto bad_key = Find(t, Int64s({1}, {1}), Tensor::Scalar<int64_t>(-1));
  EXPECT_TRUE(absl::IsInvalidArgument(bad_key.status()));
  EXPECT_NE(bad_key.status().message().find("Signature mismatch, have: resource, int64, "
                                            "int64->int64 expected: resource, string, "
                                            "int64->int64"),
            std::string::npos)
      << bad_key.status();
  auto bad_value = Find(t, Strings({"a"}, {1}), Tensor::Scalar<int32_t>(-1));
  EXPECT_TRUE(absl::IsInvalidArgument(bad_value.status())) << bad_value.status();

  auto not_resource =
      Find(Tensor::Scalar<int64_t>(0), Strings({"a"}, {1}), Tensor::Scalar<int64_t>(-1));
  EXPECT_TRUE(absl::IsInvalidArgument(not_resource.status())) << not_resource.status();
  Tensor var =
      Tensor::Scalar<ResourceHandle>(ResourceHandle("", "v", std::make_shared<Var>(DT_INT64)));
  auto not_table = Find(var, Strings({"a"}, {1}), Tensor::Scalar<int64_t>(-1));
  EXPECT_TRUE(absl::IsNotFound(not_table.status())) << not_table.status();
}

TEST(HashTableTest, ReinitializationFollowsTensorFlow) {
  Tensor t = Table("HashTableV2", "reinit", DT_STRING, DT_INT64);
  ASSERT_TRUE(
      Update("InitializeTableV2", t, Strings({"a", "b", "c"}, {3}), Int64s({1, 2, 3}, {3})).ok());
  // Same entry count: accepted without change (TensorFlow compares sizes only).
  EXPECT_TRUE(
      Update("InitializeTableV2", t, Strings({"x", "y", "z"}, {3}), Int64s({7, 8, 9}, {3})).ok());
  EXPECT_TRUE(
      Update("LookupTableImportV2", t, Strings({"x", "y", "z"}, {3}), Int64s({7, 8, 9}, {3})).ok());
  ExpectFind(t, Strings({"a", "x"}, {2}), Tensor::Scalar<int64_t>(-1), Int64s({1, -1}, {2}));
  absl::Status other = Update("InitializeTableV2", t, Strings({"x"}, {1}), Int64s({7}, {1}));
  EXPECT_TRUE(absl::IsFailedPrecondition(other)) << other;
  EXPECT_NE(other.message().find("Table was already initialized with different data."),
            std::string::npos);
  absl::Status insert = Update("LookupTableInsertV2", t, Strings({"x"}, {1}), Int64s({7}, {1}));
  EXPECT_TRUE(absl::IsUnimplemented(insert)) << insert;
}

TEST(HashTableTest, InitializeErrors) {
  Tensor t = Table("HashTableV2", "init_errors", DT_STRING, DT_INT64);
  EXPECT_TRUE(absl::IsInvalidArgument(
      Update("InitializeTableV2", t, Strings({"a"}, {1, 1}), Int64s({1}, {1, 1}))));
  EXPECT_TRUE(absl::IsInvalidArgument(
      Update("InitializeTableV2", t, Strings({"a", "b"}, {2}), Int64s({1}, {1}))));
  EXPECT_TRUE(absl::IsInvalidArgument(
      Update("InitializeTableV2", t, Strings({"a"}, {1}), AsTensor<int32_t>({1}, {1}))));
  absl::Status empty = Update("InitializeTableV2", t, Strings({}, {0}), Int64s({}, {0}));
  EXPECT_TRUE(absl::IsInvalidArgument(empty)) << empty;
  EXPECT_NE(empty.message().find("keys and values cannot be empty tensors."), std::string::npos);

  absl::Status dup = Update("InitializeTableV2", t, Strings({"a", "a"}, {2}), Int64s({1, 2}, {2}));
  EXPECT_TRUE(absl::IsFailedPrecondition(dup)) << dup;
  EXPECT_NE(dup.message().find(
                "HashTable has different value for same key. Key a has 1 and trying to add "
                "value 2"),
            std::string::npos)
      << dup;
  // The failed initialisation left the table empty and uninitialised.
  EXPECT_EQ(Size(t), 0);
  EXPECT_TRUE(absl::IsFailedPrecondition(
      Find(t, Strings({"a"}, {1}), Tensor::Scalar<int64_t>(-1)).status()));
  // Repeating a key with the same value is fine.
  ASSERT_TRUE(Update("InitializeTableV2", t, Strings({"a", "a"}, {2}), Int64s({1, 1}, {2})).ok());
  EXPECT_EQ(Size(t), 1);
}

TEST(HashTableTest, ImportInitializesStaticTable) {
  Tensor t = Table("HashTableV2", "import_static", DT_STRING, DT_INT64);
  absl::Status mismatch =
      Update("LookupTableImportV2", t, Strings({"a", "b"}, {2}), Int64s({1, 2}, {1, 2}));
  EXPECT_TRUE(absl::IsInvalidArgument(mismatch)) << mismatch;
  EXPECT_NE(mismatch.message().find("Expected shape [2] for value, got [1,2]"), std::string::npos);
  // Import takes keys of any shape (Keras lookup layers import rank-1 constants).
  ASSERT_TRUE(
      Update("LookupTableImportV2", t, Strings({"a", "b"}, {1, 2}), Int64s({1, 2}, {1, 2})).ok());
  ExpectFind(t, Strings({"b", "a", "?"}, {3}), Tensor::Scalar<int64_t>(0), Int64s({2, 1, 0}, {3}));
}

TEST(HashTableTest, SharedAcrossRunsByNameAndNodeName) {
  // Created and initialised through one kernel instance, found through another.
  Tensor t1 = Table("HashTableV2", "shared", DT_INT64, DT_INT64);
  ASSERT_TRUE(Update("InitializeTableV2", t1, Int64s({5, 6}, {2}), Int64s({50, 60}, {2})).ok());
  Tensor t2 = Table("HashTableV2", "shared", DT_INT64, DT_INT64);
  ExpectFind(t2, Int64s({6, 7, 5}, {3}), Tensor::Scalar<int64_t>(0), Int64s({60, 0, 50}, {3}));

  // Without a shared_name the node name identifies the table.
  auto n1 = MakeTable("HashTableV2", "", DT_INT64, DT_INT64, "node_named_table");
  ASSERT_TRUE(n1.ok()) << n1.status();
  ASSERT_TRUE(Update("InitializeTableV2", *n1, Int64s({1}, {1}), Int64s({10}, {1})).ok());
  auto n2 = MakeTable("HashTableV2", "", DT_INT64, DT_INT64, "node_named_table");
  ASSERT_TRUE(n2.ok()) << n2.status();
  ExpectFind(*n2, Int64s({1}, {1}), Tensor::Scalar<int64_t>(0), Int64s({10}, {1}));

  auto conflict = MakeTable("HashTableV2", "shared", DT_INT64, DT_FLOAT);
  EXPECT_TRUE(absl::IsInvalidArgument(conflict.status())) << conflict.status();
  EXPECT_NE(conflict.status().message().find(
                "Conflicting key/value dtypes int64->float with int64-int64 for table shared"),
            std::string::npos)
      << conflict.status();
}

TEST(HashTableTest, KeyValueDtypes) {
  Tensor i64_str = Table("HashTableV2", "i64_str", DT_INT64, DT_STRING);
  ASSERT_TRUE(
      Update("InitializeTableV2", i64_str, Int64s({3, -4}, {2}), Strings({"x", "y"}, {2})).ok());
  ExpectFind(i64_str, Int64s({-4, 0, 3}, {3}), Tensor::Scalar<std::string>("UNK"),
             Strings({"y", "UNK", "x"}, {3}));

  Tensor str_str = Table("HashTableV2", "str_str", DT_STRING, DT_STRING);
  ASSERT_TRUE(Update("InitializeTableV2", str_str, Strings({"k"}, {1}), Strings({"v"}, {1})).ok());
  ExpectFind(str_str, Strings({"k", "K"}, {2}), Tensor::Scalar<std::string>(""),
             Strings({"v", ""}, {2}));

  Tensor str_float = Table("HashTableV2", "str_float", DT_STRING, DT_FLOAT);
  ASSERT_TRUE(Update("InitializeTableV2", str_float, Strings({"pi", "e"}, {2}),
                     AsTensor<float>({3.14f, 2.72f}, {2}))
                  .ok());
  ExpectFind(str_float, Strings({"e", "phi"}, {2}), Tensor::Scalar<float>(-1.5f),
             AsTensor<float>({2.72f, -1.5f}, {2}));

  Tensor i32_float = Table("HashTableV2", "i32_float", DT_INT32, DT_FLOAT);
  ASSERT_TRUE(Update("InitializeTableV2", i32_float, AsTensor<int32_t>({1, 2}, {2}),
                     AsTensor<float>({0.5f, 0.25f}, {2}))
                  .ok());
  ExpectFind(i32_float, AsTensor<int32_t>({2, 3}, {2}), Tensor::Scalar<float>(0),
             AsTensor<float>({0.25f, 0}, {2}));

  Tensor str_bool = Table("HashTableV2", "str_bool", DT_STRING, DT_BOOL);
  ASSERT_TRUE(
      Update("InitializeTableV2", str_bool, Strings({"yes"}, {1}), AsTensor<bool>({true}, {1}))
          .ok());
  ExpectFind(str_bool, Strings({"yes", "no"}, {2}), Tensor::Scalar<bool>(false),
             AsTensor<bool>({true, false}, {2}));

  auto unsupported = MakeTable("HashTableV2", "float_keys", DT_FLOAT, DT_INT64);
  EXPECT_TRUE(absl::IsInvalidArgument(unsupported.status())) << unsupported.status();
}

TEST(MutableHashTableTest, InsertImportFind) {
  Tensor t = Table("MutableHashTableV2", "mutable", DT_STRING, DT_FLOAT);
  ExpectFind(t, Strings({"a"}, {1}), Tensor::Scalar<float>(0.5f), AsTensor<float>({0.5f}, {1}));
  ASSERT_TRUE(
      Update("LookupTableInsertV2", t, Strings({"a", "b"}, {2}), AsTensor<float>({1, 2}, {2}))
          .ok());
  // Later duplicates win.
  ASSERT_TRUE(
      Update("LookupTableInsertV2", t, Strings({"a", "a"}, {2}), AsTensor<float>({3, 4}, {2}))
          .ok());
  ExpectFind(t, Strings({"a", "b", "c"}, {3}), Tensor::Scalar<float>(0.5f),
             AsTensor<float>({4, 2, 0.5f}, {3}));
  EXPECT_EQ(Size(t), 2);

  // Import replaces the contents.
  ASSERT_TRUE(
      Update("LookupTableImportV2", t, Strings({"c"}, {1}), AsTensor<float>({9}, {1})).ok());
  ExpectFind(t, Strings({"a", "b", "c"}, {3}), Tensor::Scalar<float>(0.5f),
             AsTensor<float>({0.5f, 0.5f, 9}, {3}));
  // A mutable table uses a full-shape default element by element.
  ExpectFind(t, Strings({"a", "c"}, {2}), AsTensor<float>({7, 8}, {2}),
             AsTensor<float>({7, 9}, {2}));

  EXPECT_TRUE(absl::IsInvalidArgument(
      Update("LookupTableInsertV2", t, Strings({"a", "b"}, {2}), AsTensor<float>({1}, {1}))));
  absl::Status init =
      Update("InitializeTableV2", t, Strings({"a"}, {1}), AsTensor<float>({1}, {1}));
  EXPECT_TRUE(absl::IsInvalidArgument(init)) << init;
  EXPECT_NE(init.message().find("is not initializable"), std::string::npos);

  ASSERT_TRUE(Update("LookupTableImportV2", t, Strings({}, {0}), AsTensor<float>({}, {0})).ok());
  EXPECT_EQ(Size(t), 0);
}

TEST(HashTableTest, ConcurrentLookups) {
  Tensor t = Table("HashTableV2", "concurrent", DT_INT64, DT_INT64);
  std::vector<int64_t> keys, values;
  for (int64_t i = 0; i < 1000; ++i) {
    keys.push_back(i);
    values.push_back(i * i);
  }
  ASSERT_TRUE(Update("InitializeTableV2", t, Int64s(keys, {1000}), Int64s(values, {1000})).ok());
  Tensor m = Table("MutableHashTableV2", "concurrent_mutable", DT_INT64, DT_INT64);
  std::vector<std::thread> threads;
  std::vector<int> failures(8, 0);
  for (int w = 0; w < 8; ++w) {
    threads.emplace_back([&, w] {
      for (int round = 0; round < 50; ++round) {
        const int64_t k = (w * 131 + round * 17) % 1200;
        auto got = Find(t, Int64s({k}, {1}), Tensor::Scalar<int64_t>(-1));
        if (!got.ok() || got->data<int64_t>()[0] != (k < 1000 ? k * k : -1)) ++failures[w];
        // Writers and readers of a mutable table interleave safely.
        if (!Update("LookupTableInsertV2", m, Int64s({k}, {1}), Int64s({k}, {1})).ok()) {
          ++failures[w];
        }
        auto mine = Find(m, Int64s({k}, {1}), Tensor::Scalar<int64_t>(-1));
        if (!mine.ok() || mine->data<int64_t>()[0] != k) ++failures[w];
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int w = 0; w < 8; ++w) EXPECT_EQ(failures[w], 0) << "worker " << w;
}

}  // namespace
}  // namespace tensord
