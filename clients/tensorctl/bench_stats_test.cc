#include "clients/tensorctl/bench_stats.h"

#include <algorithm>
#include <numeric>
#include <random>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tensord {
namespace tensorctl {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

std::vector<int64_t> OneTo(int64_t n) {
  std::vector<int64_t> v(n);
  std::iota(v.begin(), v.end(), 1);
  return v;
}

// `n` requests of `latency_ns` each over `seconds`.
Window Uniform(int n, int64_t latency_ns, double seconds) {
  Window w;
  w.duration_s = seconds;
  w.latencies_ns.assign(n, latency_ns);
  return w;
}

TEST(BenchStatsTest, PercentileIsNearestRank) {
  const std::vector<int64_t> hundred = OneTo(100);
  EXPECT_EQ(Percentile(hundred, 50), 50);
  EXPECT_EQ(Percentile(hundred, 90), 90);
  EXPECT_EQ(Percentile(hundred, 95), 95);
  EXPECT_EQ(Percentile(hundred, 99), 99);
  EXPECT_EQ(Percentile(hundred, 100), 100);
  EXPECT_EQ(Percentile(hundred, 0), 1);
  EXPECT_EQ(Percentile(hundred, 7), 7);  // 7 / 100 * 100 is just above 7 in floating point

  const std::vector<int64_t> ten = OneTo(10);
  EXPECT_EQ(Percentile(ten, 50), 5);
  EXPECT_EQ(Percentile(ten, 90), 9);
  EXPECT_EQ(Percentile(ten, 95), 10);  // rank ceil(9.5) = 10
  EXPECT_EQ(Percentile(ten, 99), 10);

  EXPECT_EQ(Percentile({42}, 50), 42);
  EXPECT_EQ(Percentile({42}, 99), 42);
  EXPECT_EQ(Percentile({1, 2}, 50), 1);
  EXPECT_EQ(Percentile({1, 2}, 51), 2);
}

TEST(BenchStatsTest, PercentileMatchesTheDefinitionOnRandomSamples) {
  std::mt19937 rng(7);
  for (int n : {1, 2, 3, 17, 199, 1000, 1001}) {
    std::vector<int64_t> v(n);
    for (int64_t& x : v) x = rng() % 1000;
    std::sort(v.begin(), v.end());
    for (double p : {50.0, 90.0, 95.0, 99.0}) {
      const int64_t value = Percentile(v, p);
      const auto at_most = std::upper_bound(v.begin(), v.end(), value) - v.begin();
      const auto below = std::lower_bound(v.begin(), v.end(), value) - v.begin();
      EXPECT_GE(at_most * 100, p * n) << "n=" << n << " p=" << p;  // covers p%
      EXPECT_LT(below * 100, p * n) << "n=" << n << " p=" << p;    // and is the smallest such
    }
  }
}

TEST(BenchStatsTest, SummarizeInMilliseconds) {
  std::vector<int64_t> ns;
  for (int64_t i : OneTo(100)) ns.push_back(i * 1000000);  // 1..100 ms
  std::shuffle(ns.begin(), ns.end(), std::mt19937(1));
  LatencySummary s = Summarize(ns);
  EXPECT_EQ(s.count, 100);
  EXPECT_DOUBLE_EQ(s.avg_ms, 50.5);
  EXPECT_DOUBLE_EQ(s.p50_ms, 50);
  EXPECT_DOUBLE_EQ(s.p90_ms, 90);
  EXPECT_DOUBLE_EQ(s.p95_ms, 95);
  EXPECT_DOUBLE_EQ(s.p99_ms, 99);
  EXPECT_DOUBLE_EQ(s.max_ms, 100);

  LatencySummary empty = Summarize({});
  EXPECT_EQ(empty.count, 0);
  EXPECT_EQ(empty.p99_ms, 0);
  EXPECT_EQ(empty.avg_ms, 0);
}

TEST(BenchStatsTest, WindowCounts) {
  Window w = Uniform(50, 1000, 0.5);
  w.errors = {{4, 2}, {14, 3}};
  EXPECT_EQ(w.successes(), 50);
  EXPECT_EQ(w.error_count(), 5);
  EXPECT_DOUBLE_EQ(w.throughput(), 100);
  EXPECT_EQ(Window().throughput(), 0);
}

TEST(BenchStatsTest, StableWithinThePercentage) {
  // Throughputs 100, 105, 110 per second: max / min = 1.1.
  std::vector<Window> windows = {Uniform(100, 1000, 1), Uniform(105, 1000, 1),
                                 Uniform(110, 1000, 1)};
  EXPECT_TRUE(IsStable(windows, 10));
  EXPECT_FALSE(IsStable(windows, 9));
  windows[2] = Uniform(111, 1000, 1);
  EXPECT_FALSE(IsStable(windows, 10));
}

TEST(BenchStatsTest, P99MustBeStableToo) {
  std::vector<Window> windows = {Uniform(100, 1000, 1), Uniform(100, 1000, 1),
                                 Uniform(100, 1000, 1)};
  EXPECT_TRUE(IsStable(windows, 10));
  // Two slow requests in a window of 100 move its p99 (the 99th smallest) to 1200 ns.
  windows[1].latencies_ns[0] = 1200;
  windows[1].latencies_ns[1] = 1200;
  EXPECT_FALSE(IsStable(windows, 10));
  EXPECT_TRUE(IsStable(windows, 20));
  // One slow request is the maximum, not the p99: still stable.
  windows[1].latencies_ns[1] = 1000;
  EXPECT_TRUE(IsStable(windows, 10));
}

TEST(BenchStatsTest, EmptyWindowsAndTooFewWindows) {
  Window failed;
  failed.duration_s = 1;
  failed.errors[14] = 30;
  EXPECT_TRUE(IsStable({failed, failed, failed}, 10));
  EXPECT_FALSE(IsStable({failed, Uniform(10, 1000, 1), failed}, 10));
  EXPECT_FALSE(IsStable({Uniform(10, 1000, 1)}, 10));
  EXPECT_FALSE(IsStable({}, 10));
  EXPECT_TRUE(IsStable({Uniform(10, 1000, 1), Uniform(10, 1000, 1)}, 0));
}

TEST(BenchStatsTest, MergeAddsEverything) {
  Window a = Uniform(2, 5, 0.5);
  a.errors[4] = 1;
  a.delayed = 3;
  Window b = Uniform(1, 7, 0.25);
  b.errors[4] = 2;
  b.errors[14] = 1;
  Window merged = Merge({a, b});
  EXPECT_DOUBLE_EQ(merged.duration_s, 0.75);
  EXPECT_THAT(merged.latencies_ns, ElementsAre(5, 5, 7));
  EXPECT_THAT(merged.errors, ElementsAre(Pair(4, 3), Pair(14, 1)));
  EXPECT_EQ(merged.delayed, 3);
  EXPECT_DOUBLE_EQ(merged.throughput(), 4);
}

}  // namespace
}  // namespace tensorctl
}  // namespace tensord
