#include "runtime/exec/op_profile.h"

#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace tensord {
namespace {

TEST(OpProfileTest, SumsPerOpTypeMostTimeFirst) {
  OpProfile profile;
  profile.Add("MatMul", 3000000);
  profile.Add("Relu", 1000000);
  profile.Add("MatMul", 5000000);
  profile.Add("Add", 1000000);
  const std::vector<OpProfile::Entry> entries = profile.Entries();
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].op, "MatMul");
  EXPECT_EQ(entries[0].count, 2);
  EXPECT_EQ(entries[0].total_ns, 8000000);
  EXPECT_EQ(entries[1].op, "Add");  // ties by name
  EXPECT_EQ(entries[2].op, "Relu");
}

TEST(OpProfileTest, TableDividesByRuns) {
  OpProfile profile;
  profile.Add("MatMul", 6000000);
  profile.Add("MatMul", 6000000);
  profile.Add("Softmax", 4000000);
  profile.Add("Softmax", 4000000);
  const std::string table = profile.Table(2);
  EXPECT_NE(table.find("op type"), std::string::npos) << table;
  // MatMul: 1 kernel per run, 6 ms per run, 60% of 20 ms.
  EXPECT_EQ(table,
            "op type kernels/run       ms/run   share\n"
            "MatMul          1.0        6.000   60.0%\n"
            "Softmax         1.0        4.000   40.0%\n"
            "total           2.0       10.000  100.0%\n");
}

TEST(OpProfileTest, ConcurrentAddsAllCount) {
  OpProfile profile;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&profile] {
      for (int i = 0; i < 1000; ++i) profile.Add("Add", 1);
    });
  }
  for (std::thread& t : threads) t.join();
  ASSERT_EQ(profile.Entries().size(), 1u);
  EXPECT_EQ(profile.Entries()[0].count, 4000);
  EXPECT_EQ(profile.Entries()[0].total_ns, 4000);
}

}  // namespace
}  // namespace tensord
