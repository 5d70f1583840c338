#include <random>

#include "Eigen/Core"
#include "gtest/gtest.h"
#include "kernels/array/array_test_util.h"

namespace tensord {
namespace testing {
namespace {

::tensorflow::NodeDef Transpose(DataType t, DataType tperm = DT_INT32) {
  return NodeBuilder("Transpose").Attr("T", t).Attr("Tperm", tperm).Build();
}

// Direct definition: y[i_0, ..., i_n] = x[j] with j[perm[k]] = i_k.
template <typename T>
Tensor NaiveTranspose(const Tensor& x, const std::vector<int32_t>& perm) {
  const int rank = x.dims();
  TensorShape out_shape;
  for (int p : perm) out_shape.AddDim(x.dim_size(p));
  Tensor y(x.dtype(), out_shape);
  std::vector<int64_t> out_idx(rank, 0);
  for (int64_t flat = 0; flat < y.NumElements(); ++flat) {
    int64_t rest = flat;
    for (int k = rank - 1; k >= 0; --k) {
      out_idx[k] = rest % out_shape.dim_size(k);
      rest /= out_shape.dim_size(k);
    }
    std::vector<int64_t> in_idx(rank);
    for (int k = 0; k < rank; ++k) in_idx[perm[k]] = out_idx[k];
    int64_t src = 0;
    for (int k = 0; k < rank; ++k) src = src * x.dim_size(k) + in_idx[k];
    y.data<T>()[flat] = x.data<T>()[src];
  }
  return y;
}

TEST(TransposeOpTest, Matrix) {
  for (DeviceType device : TestDevices()) {
    ExpectTensorEqual(RunOne(Transpose(DT_FLOAT), {Iota<float>({2, 3}), Int32s({1, 0})}, device),
                      AsTensor<float>({0, 3, 1, 4, 2, 5}, {3, 2}));
    // Large enough for several cache tiles, with partial tiles at the edges.
    const Tensor x = Iota<int32_t>({67, 130});
    ExpectTensorEqual(RunOne(Transpose(DT_INT32), {x, Int32s({1, 0})}, device),
                      NaiveTranspose<int32_t>(x, {1, 0}));
  }
}

TEST(TransposeOpTest, RandomPermutationsAndDtypes) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 60; ++trial) {
    const int rank = 1 + static_cast<int>(rng() % 5);
    std::vector<int64_t> dims(rank);
    for (auto& d : dims) d = 1 + static_cast<int64_t>(rng() % 5);
    std::vector<int32_t> perm(rank);
    for (int i = 0; i < rank; ++i) perm[i] = i;
    std::shuffle(perm.begin(), perm.end(), rng);
    const Tensor f = Iota<float>(dims);
    const Tensor s = StringIota(dims);
    const Tensor b = Iota<uint8_t>(dims);
    const Tensor h = Iota<Eigen::half>(dims);
    for (DeviceType device : TestDevices()) {
      ExpectTensorEqual(RunOne(Transpose(DT_FLOAT), {f, Int32s(perm)}, device),
                        NaiveTranspose<float>(f, perm));
      ExpectTensorEqual(RunOne(Transpose(DT_STRING), {s, Int32s(perm)}, device),
                        NaiveTranspose<std::string>(s, perm));
      ExpectTensorEqual(RunOne(Transpose(DT_UINT8), {b, Int32s(perm)}, device),
                        NaiveTranspose<uint8_t>(b, perm));
      ExpectTensorEqual(RunOne(Transpose(DT_HALF), {h, Int32s(perm)}, device),
                        NaiveTranspose<Eigen::half>(h, perm));
    }
  }
}

TEST(TransposeOpTest, NhwcToNchwWithInt64Perm) {
  const Tensor x = Iota<float>({2, 4, 5, 3});
  ExpectTensorEqual(RunOne(Transpose(DT_FLOAT, DT_INT64), {x, Int64s({0, 3, 1, 2})}),
                    NaiveTranspose<float>(x, {0, 3, 1, 2}));
  const Tensor c = AsTensor<std::complex<double>>({{1, 2}, {3, 4}, {5, 6}, {7, 8}}, {2, 2});
  ExpectTensorEqual(RunOne(Transpose(DT_COMPLEX128), {c, Int32s({1, 0})}),
                    AsTensor<std::complex<double>>({{1, 2}, {5, 6}, {3, 4}, {7, 8}}, {2, 2}));
}

TEST(TransposeOpTest, OrderPreservingPermutationsShareTheBuffer) {
  const Tensor x = Iota<float>({3, 1, 4});
  Tensor same = RunOne(Transpose(DT_FLOAT), {x, Int32s({0, 1, 2})});
  ExpectTensorEqual(same, x);
  EXPECT_TRUE(same.SharesBufferWith(x));
  Tensor moved_one = RunOne(Transpose(DT_FLOAT), {x, Int32s({1, 0, 2})});
  ExpectTensorEqual(moved_one, Iota<float>({1, 3, 4}));
  EXPECT_TRUE(moved_one.SharesBufferWith(x));
  // Negative entries count from the end (TensorFlow accepts them).
  ExpectTensorEqual(RunOne(Transpose(DT_FLOAT), {Iota<float>({3, 2}), Int32s({-1, 0})}),
                    AsTensor<float>({0, 2, 4, 1, 3, 5}, {2, 3}));
}

TEST(TransposeOpTest, EmptyAndScalar) {
  ExpectTensorEqual(RunOne(Transpose(DT_FLOAT), {Iota<float>({0, 3}), Int32s({1, 0})}),
                    Iota<float>({3, 0}));
  ExpectTensorEqual(RunOne(Transpose(DT_FLOAT), {Iota<float>({}, 4), Int32s({})}),
                    Iota<float>({}, 4));
}

TEST(TransposeOpTest, Errors) {
  const Tensor x = Iota<float>({5, 2});
  ExpectInvalidArgument(Transpose(DT_FLOAT), {x, Int32s({0, 2})}, "2 is out of range [0 .. 2)");
  ExpectInvalidArgument(Transpose(DT_FLOAT), {x, Int32s({0, 0})}, "1 is missing from {0,0}.");
  ExpectInvalidArgument(Transpose(DT_FLOAT), {x, Int32s({0})},
                        "transpose expects a vector of size 2. But input(1) is a vector of size 1");
  ExpectInvalidArgument(Transpose(DT_FLOAT), {x, AsTensor<int32_t>({0, 1}, {1, 2})},
                        "perm must be rank 1, got shape [1,2]");
}

}  // namespace
}  // namespace testing
}  // namespace tensord
