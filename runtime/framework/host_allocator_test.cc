#include "runtime/framework/host_allocator.h"

#include <cstdint>
#include <cstring>

#include "gtest/gtest.h"

namespace tensord {
namespace {

TEST(HostAllocatorTest, AlignedAndRoundedToSizeClasses) {
  HostAllocator allocator(HostAllocator::Options{});
  size_t capacity = 0;
  void* p = allocator.Allocate(100000, &capacity);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
  EXPECT_GE(capacity, 100000u);
  EXPECT_LE(capacity, 100000u * 5 / 4);
  std::memset(p, 1, capacity);
  allocator.Deallocate(p, capacity);
  void* zero = allocator.Allocate(0, &capacity);
  EXPECT_NE(zero, nullptr);
  allocator.Deallocate(zero, capacity);
}

TEST(HostAllocatorTest, ReusesFreedLargeBlocks) {
  HostAllocator allocator(HostAllocator::Options{});
  size_t capacity = 0;
  void* first = allocator.Allocate(1 << 20, &capacity);
  allocator.Deallocate(first, capacity);
  EXPECT_EQ(allocator.cached_bytes(), capacity);
  size_t again = 0;
  void* second = allocator.Allocate((1 << 20) - 100, &again);
  EXPECT_EQ(second, first);
  EXPECT_EQ(again, capacity);
  EXPECT_EQ(allocator.cached_bytes(), 0u);
  allocator.Deallocate(second, again);
}

TEST(HostAllocatorTest, CacheIsBounded) {
  HostAllocator allocator(HostAllocator::Options{1024, 3 << 20});
  std::vector<std::pair<void*, size_t>> blocks;
  for (int i = 0; i < 5; ++i) {
    size_t capacity = 0;
    blocks.emplace_back(allocator.Allocate(1 << 20, &capacity), capacity);
  }
  for (auto& [p, c] : blocks) allocator.Deallocate(p, c);
  EXPECT_EQ(allocator.cached_bytes(), size_t{3} << 20);
}

}  // namespace
}  // namespace tensord
