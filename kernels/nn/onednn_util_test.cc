#include "kernels/nn/onednn_util.h"

#include <memory>

#include "gtest/gtest.h"

namespace tensord {
namespace onednn {
namespace {

// A 64x128 filter as given (row-major) and as a kernel wants it (column-major): a reorder.
const dnnl::memory::desc kUser({64, 128}, dnnl::memory::data_type::f32,
                               dnnl::memory::format_tag::ab);
const dnnl::memory::desc kWanted({64, 128}, dnnl::memory::data_type::f32,
                                 dnnl::memory::format_tag::ba);

Tensor Filter() {
  Tensor filter(DT_FLOAT, {64, 128});
  for (int64_t i = 0; i < filter.NumElements(); ++i) filter.data<float>()[i] = 0.5f * i;
  return filter;
}

void ExpectTransposed(const dnnl::memory& packed, const Tensor& filter) {
  const auto* columns = static_cast<const float*>(packed.get_data_handle());
  for (int r = 0; r < 64; ++r) {
    for (int c = 0; c < 128; ++c) {
      ASSERT_EQ(columns[c * 64 + r], filter.data<float>()[r * 128 + c]) << r << "," << c;
    }
  }
}

TEST(WeightsCacheTest, KernelsReadingTheSameFilterShareOnePackedCopy) {
  const Tensor filter = Filter();
  WeightsCache first_kernel, second_kernel;
  const std::shared_ptr<dnnl::memory> packed = first_kernel.Get(kUser, kWanted, filter);
  ExpectTransposed(*packed, filter);
  EXPECT_EQ(second_kernel.Get(kUser, kWanted, filter), packed);
  EXPECT_EQ(second_kernel.Get(kUser, kWanted, filter.Slice(0, 64)), packed);  // same bytes

  // Equal values in another buffer are another filter (buffers are compared, not values).
  WeightsCache third_kernel;
  const Tensor copy = filter.DeepCopy();
  const std::shared_ptr<dnnl::memory> own = third_kernel.Get(kUser, kWanted, copy);
  EXPECT_NE(own, packed);
  ExpectTransposed(*own, copy);
}

TEST(WeightsCacheTest, SharingKeepsNoCopyAliveThatNoKernelHolds) {
  const Tensor filter = Filter();
  std::weak_ptr<dnnl::memory> first;
  {
    WeightsCache kernel;
    first = kernel.Get(kUser, kWanted, filter);
  }
  EXPECT_TRUE(first.expired());
  WeightsCache later_kernel;
  ExpectTransposed(*later_kernel.Get(kUser, kWanted, filter), filter);
}

}  // namespace
}  // namespace onednn
}  // namespace tensord
