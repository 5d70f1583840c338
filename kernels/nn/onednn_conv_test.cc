#include "kernels/nn/onednn_conv.h"

#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/nn/nn_test_util.h"
#include "kernels/testing/kernel_test_util.h"
#include "runtime/framework/tensor_eigen.h"

namespace tensord {
namespace {

using testing::RandomFloatTensor;

Window2DGeometry Geometry3x3Same(int64_t batch, int64_t size, int64_t depth) {
  Window2DGeometry g{};
  g.batch = batch;
  g.in_rows = g.in_cols = g.out_rows = g.out_cols = size;
  g.depth = depth;
  g.k_rows = g.k_cols = 3;
  g.stride_rows = g.stride_cols = g.dil_rows = g.dil_cols = 1;
  g.pad_top = g.pad_left = 1;
  return g;
}

const Eigen::ThreadPoolDevice& Device() {
  static auto* pool = new Eigen::ThreadPool(2);
  static auto* device = new Eigen::ThreadPoolDevice(pool, 2);
  return *device;
}

Tensor Convolve(const OneDnnConv2D& conv, const Window2DGeometry& g, const Tensor& input,
           const Tensor& filter) {
  Tensor out(DT_FLOAT, TensorShape{g.batch, g.out_rows, g.out_cols, filter.dim_size(3)});
  const absl::Status s = conv.Run(g, input, filter, 1, filter.dim_size(3), nullptr, nullptr, Device(), &out);
  EXPECT_TRUE(s.ok()) << s;
  return out;
}

// The reordered filter is cached by buffer: a new filter buffer must never run with the old
// weights, and coming back to the first filter must give its results again.
TEST(OneDnnConvTest, CachedWeightsFollowTheFilterBuffer) {
  const Window2DGeometry g = Geometry3x3Same(2, 6, 8);
  const Tensor input = RandomFloatTensor({2, 6, 6, 8}, 1);
  const Tensor filter_a = RandomFloatTensor({3, 3, 8, 5}, 2);
  const Tensor filter_b = RandomFloatTensor({3, 3, 8, 5}, 3);
  const OneDnnConv2D shared{OneDnnConvOptions()};
  const Tensor a1 = Convolve(shared, g, input, filter_a);
  const Tensor b = Convolve(shared, g, input, filter_b);
  const Tensor a2 = Convolve(shared, g, input, filter_a);
  testing::ExpectTensorEqual(a2, a1);
  testing::ExpectTensorEqual(b, Convolve(OneDnnConv2D{OneDnnConvOptions()}, g, input, filter_b));
  // Another input shape gets its own primitive and still the right weights.
  const Window2DGeometry small = Geometry3x3Same(1, 4, 8);
  const Tensor small_input = RandomFloatTensor({1, 4, 4, 8}, 4);
  testing::ExpectTensorEqual(Convolve(shared, small, small_input, filter_b),
                             Convolve(OneDnnConv2D{OneDnnConvOptions()}, small, small_input, filter_b));
}

// Many requests run convolutions at once (the same node and different ones): every result must
// equal the one computed alone. oneDNN's default scratch memory is shared between primitives,
// which this caught.
TEST(OneDnnConvTest, ConcurrentRunsGiveTheResultsOfSerialRuns) {
  const Window2DGeometry big = Geometry3x3Same(2, 24, 16);
  const Window2DGeometry one = Geometry3x3Same(1, 24, 16);
  const Window2DGeometry small_plane = Geometry3x3Same(4, 2, 256);  // a matrix product
  const Tensor input = RandomFloatTensor({2, 24, 24, 16}, 5);
  const Tensor single = RandomFloatTensor({1, 24, 24, 16}, 6);
  const Tensor small_input = RandomFloatTensor({4, 2, 2, 256}, 9);
  const Tensor filter_a = RandomFloatTensor({3, 3, 16, 32}, 7);
  const Tensor filter_b = RandomFloatTensor({3, 3, 16, 8}, 8);
  const Tensor filter_c = RandomFloatTensor({3, 3, 256, 96}, 10);
  const OneDnnConv2D conv_a{OneDnnConvOptions()}, conv_b{OneDnnConvOptions()},
      conv_c{OneDnnConvOptions()};
  const Tensor want_a = Convolve(OneDnnConv2D{OneDnnConvOptions()}, big, input, filter_a);
  const Tensor want_b = Convolve(OneDnnConv2D{OneDnnConvOptions()}, one, single, filter_b);
  const Tensor want_c =
      Convolve(OneDnnConv2D{OneDnnConvOptions()}, small_plane, small_input, filter_c);
  std::vector<std::thread> threads;
  std::vector<Tensor> got(18);
  for (int i = 0; i < 18; ++i) {
    threads.emplace_back([&, i] {
      got[i] = i % 3 == 0   ? Convolve(conv_a, big, input, filter_a)
               : i % 3 == 1 ? Convolve(conv_b, one, single, filter_b)
                            : Convolve(conv_c, small_plane, small_input, filter_c);
    });
  }
  for (std::thread& t : threads) t.join();
  for (int i = 0; i < 18; ++i) {
    // Alone, the product is split by output channels; under load it may run whole, which can
    // round differently.
    if (i % 3 == 2) {
      testing::ExpectTensorNear(got[i], want_c, 1e-5, 1e-5);
    } else {
      testing::ExpectTensorEqual(got[i], i % 3 == 0 ? want_a : want_b);
    }
  }
}

}  // namespace
}  // namespace tensord
