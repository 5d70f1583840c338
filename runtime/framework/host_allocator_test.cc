#include "runtime/framework/host_allocator.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <vector>

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

// Pages of [data, data + bytes) the process has mapped.
size_t ResidentPages(void* data, size_t bytes) {
  std::vector<unsigned char> resident(bytes / getpagesize());
  EXPECT_EQ(mincore(data, bytes, resident.data()), 0);
  size_t count = 0;
  for (unsigned char r : resident) count += r & 1;
  return count;
}

// Whether this kernel prefaults at all (Linux 5.14 and later).
bool KernelPrefaults() {
  const size_t page = getpagesize();
  void* probe = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  const bool prefaults = madvise(probe, page, MADV_POPULATE_WRITE) == 0;
  munmap(probe, page);
  return prefaults;
}

TEST(HostAllocatorTest, PrefaultMapsTheWholePagesOfTheRange) {
  const size_t page = getpagesize();
  const size_t pages = 64;
  void* region =
      mmap(nullptr, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(region, MAP_FAILED);
  ASSERT_EQ(ResidentPages(region, pages * page), 0u);
  // From the middle of page 1 to the middle of page 40: pages 2..39 are wholly inside.
  auto* bytes = static_cast<char*>(region);
  EXPECT_EQ(PrefaultForWrite(bytes + page + page / 2, 39 * page), KernelPrefaults());
  const size_t inside = KernelPrefaults() ? 38 : 0;
  EXPECT_EQ(ResidentPages(region, pages * page), inside);
  EXPECT_EQ(ResidentPages(bytes + 2 * page, 38 * page), inside);
  munmap(region, pages * page);
}

TEST(HostAllocatorTest, FreshLargeBlocksArePrefaulted) {
  HostAllocator allocator(HostAllocator::Options{});
  const size_t bytes = 8 << 20;
  size_t capacity = 0;
  auto* block = static_cast<char*>(allocator.Allocate(bytes, &capacity));
  ASSERT_NE(block, nullptr);
  const size_t page = getpagesize();
  char* first_page = block + (page - reinterpret_cast<uintptr_t>(block) % page) % page;
  const size_t whole_pages = (block + bytes - first_page) / page;
  EXPECT_EQ(ResidentPages(first_page, whole_pages * page), KernelPrefaults() ? whole_pages : 0);
  allocator.Deallocate(block, capacity);
}

// Whether any page of [data, data + bytes) is still mapped into the process.
bool Mapped(void* data, size_t bytes) {
  std::vector<unsigned char> resident(bytes / getpagesize());
  return mincore(data, bytes, resident.data()) == 0;  // ENOMEM once unmapped
}

TEST(HostAllocatorTest, LargeBlocksGoBackToTheSystemWhenFreedOrReleased) {
  HostAllocator uncached(HostAllocator::Options{16 * 1024, 0});
  size_t capacity = 0;
  void* block = uncached.Allocate(1 << 20, &capacity);
  ASSERT_NE(block, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(block) % getpagesize(), 0u);
  ASSERT_TRUE(Mapped(block, capacity));
  uncached.Deallocate(block, capacity);  // over the bound: unmapped at once
  EXPECT_FALSE(Mapped(block, capacity));

  HostAllocator cached(HostAllocator::Options{});
  block = cached.Allocate(1 << 20, &capacity);
  cached.Deallocate(block, capacity);
  EXPECT_TRUE(Mapped(block, capacity));  // kept for the next allocation of its class
  cached.ReleaseCached();
  EXPECT_EQ(cached.cached_bytes(), 0u);
  EXPECT_FALSE(Mapped(block, capacity));
}

}  // namespace
}  // namespace tensord
