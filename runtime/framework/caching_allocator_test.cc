#include "runtime/framework/caching_allocator.h"

#include <cstdlib>
#include <set>

#include "gtest/gtest.h"

namespace tensord {
namespace {

// What a CountedMemory handed out; outlives it.
struct Counts {
  size_t held_ = 0;
  int allocations_ = 0;
  int frees_ = 0;
};

// Host memory standing in for a device's, with a capacity, counting what it hands out.
class CountedMemory : public RawAllocator {
 public:
  CountedMemory(size_t capacity, Counts* counts) : capacity_(capacity), counts_(counts) {}
  void* Allocate(size_t bytes) override {
    if (counts_->held_ + bytes > capacity_) return nullptr;
    counts_->held_ += bytes;
    ++counts_->allocations_;
    return std::aligned_alloc(256, bytes);
  }
  void Free(void* block, size_t bytes) override {
    counts_->held_ -= bytes;
    ++counts_->frees_;
    std::free(block);
  }

 private:
  const size_t capacity_;
  Counts* const counts_;
};

struct Fixture {
  explicit Fixture(size_t capacity, size_t limit = 0) {
    CachingAllocator::Options options;
    options.name = "/device:GPU:7";
    options.limit_bytes = limit;
    allocator = std::make_unique<CachingAllocator>(
        std::make_unique<CountedMemory>(capacity, &counts), options);
  }
  Counts counts;
  Counts* memory = &counts;
  std::unique_ptr<CachingAllocator> allocator;
};

TEST(RoundToSizeClassTest, QuarterPowerOfTwoSteps) {
  EXPECT_EQ(RoundToSizeClass(0, 256), 256u);
  EXPECT_EQ(RoundToSizeClass(1, 256), 256u);
  EXPECT_EQ(RoundToSizeClass(257, 256), 512u);
  EXPECT_EQ(RoundToSizeClass(1024, 256), 1024u);
  EXPECT_EQ(RoundToSizeClass(1025, 256), 1280u);
  EXPECT_EQ(RoundToSizeClass(3 << 20, 256), 3u << 20);
  EXPECT_EQ(RoundToSizeClass((1 << 20) + 1, 256), (1u << 20) + (1u << 18));
  for (size_t bytes : {300u, 5000u, 77777u, 123456789u}) {
    const size_t size = RoundToSizeClass(bytes, 64);
    EXPECT_GE(size, bytes);
    EXPECT_LE(size, bytes + bytes / 4 + 64);
    EXPECT_EQ(size % 64, 0u);
  }
}

TEST(CachingAllocatorTest, ReusesFreedBlocksOfTheSameClass) {
  Fixture f(1 << 30);
  absl::StatusOr<void*> a = f.allocator->Allocate(1000);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(*a) % 256, 0u);
  f.allocator->Deallocate(*a);
  absl::StatusOr<void*> b = f.allocator->Allocate(1020);  // the same class as 1000
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(*b, *a);
  EXPECT_EQ(f.memory->allocations_, 1);
  absl::StatusOr<void*> c = f.allocator->Allocate(1000);  // the cached one is taken: a new one
  ASSERT_TRUE(c.ok());
  EXPECT_NE(*c, *b);
  EXPECT_EQ(f.memory->allocations_, 2);
  CachingAllocator::Stats stats = f.allocator->stats();
  EXPECT_EQ(stats.in_use_bytes, 2 * 1024u);
  EXPECT_EQ(stats.cached_bytes, 0u);
  EXPECT_EQ(stats.raw_allocations, 2u);
  f.allocator->Deallocate(*b);
  f.allocator->Deallocate(*c);
  stats = f.allocator->stats();
  EXPECT_EQ(stats.in_use_bytes, 0u);
  EXPECT_EQ(stats.cached_bytes, 2 * 1024u);
  EXPECT_EQ(stats.peak_in_use_bytes, 2 * 1024u);
}

TEST(CachingAllocatorTest, ReleaseCachedGivesFreeBlocksBack) {
  Fixture f(1 << 30);
  absl::StatusOr<void*> kept = f.allocator->Allocate(4096);
  absl::StatusOr<void*> freed = f.allocator->Allocate(1 << 20);
  ASSERT_TRUE(kept.ok() && freed.ok());
  f.allocator->Deallocate(*freed);
  EXPECT_EQ(f.memory->held_, 4096u + (1 << 20));
  f.allocator->ReleaseCached();
  EXPECT_EQ(f.memory->held_, 4096u);
  EXPECT_EQ(f.allocator->stats().cached_bytes, 0u);
  EXPECT_EQ(f.allocator->stats().in_use_bytes, 4096u);
  f.allocator->Deallocate(*kept);
}

TEST(CachingAllocatorTest, OutOfMemoryReleasesTheCacheAndRetries) {
  Fixture f(3 << 20);
  absl::StatusOr<void*> a = f.allocator->Allocate(2 << 20);
  ASSERT_TRUE(a.ok());
  f.allocator->Deallocate(*a);
  // 2 MiB cached + 2 MiB more would pass the device's 3: the cached block goes back first.
  absl::StatusOr<void*> b = f.allocator->Allocate((2 << 20) + 4096);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(f.memory->frees_, 1);
  EXPECT_EQ(f.allocator->stats().cached_bytes, 0u);
  // Nothing left to release: the request fails, naming the memory and the size.
  absl::StatusOr<void*> c = f.allocator->Allocate(2 << 20);
  EXPECT_EQ(c.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(c.status().message().find("/device:GPU:7 out of memory: 2097152 bytes"),
            std::string::npos)
      << c.status();
  // The failure left the allocator usable.
  f.allocator->Deallocate(*b);
  absl::StatusOr<void*> d = f.allocator->Allocate(2 << 20);
  EXPECT_TRUE(d.ok()) << d.status();
  f.allocator->Deallocate(*d);
}

TEST(CachingAllocatorTest, LimitCapsWhatIsHeld) {
  Fixture f(1 << 30, /*limit=*/1 << 20);
  absl::StatusOr<void*> a = f.allocator->Allocate(768 << 10);
  ASSERT_TRUE(a.ok());
  absl::StatusOr<void*> over = f.allocator->Allocate(512 << 10);
  EXPECT_EQ(over.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(over.status().message().find("of a limit of 1048576"), std::string::npos)
      << over.status();
  absl::StatusOr<void*> huge = f.allocator->Allocate(size_t{1} << 62);  // no overflow
  EXPECT_EQ(huge.status().code(), absl::StatusCode::kResourceExhausted);
  f.allocator->Deallocate(*a);
  // Freed but cached, it still counts against the limit until released for the next request.
  absl::StatusOr<void*> b = f.allocator->Allocate(1 << 20);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(f.memory->held_, 1u << 20);
  f.allocator->Deallocate(*b);
}

TEST(CachingAllocatorTest, IgnoresUnknownPointersAndFreesEverythingAtTheEnd) {
  Fixture f(1 << 30);
  f.allocator->Deallocate(nullptr);
  int unrelated = 0;
  f.allocator->Deallocate(&unrelated);
  absl::StatusOr<void*> in_use = f.allocator->Allocate(100);
  absl::StatusOr<void*> cached = f.allocator->Allocate(100000);
  ASSERT_TRUE(in_use.ok() && cached.ok());
  f.allocator->Deallocate(*cached);
  EXPECT_EQ(f.counts.allocations_, 2);
  f.allocator.reset();  // both blocks go back, the one in use too
  EXPECT_EQ(f.counts.frees_, 2);
  EXPECT_EQ(f.counts.held_, 0u);
}

}  // namespace
}  // namespace tensord
