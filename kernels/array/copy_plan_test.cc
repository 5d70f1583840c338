// Tests the copy engine against a direct evaluation of the plan's definition, covering each
// inner-loop mode (contiguous chunks, tabled runs, transposed tiles, strided elements), axis
// merging, negative and zero strides, empty axes, strings and 16-byte elements; and the merged
// loops that the CPU and GPU engines share.
#include "kernels/array/copy_plan.h"

#include <optional>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/array/array_util.h"
#include "runtime/framework/device.h"
#include "runtime/framework/tensor_eigen.h"

namespace tensord {
namespace array {
namespace {

class CopyPlanTest : public ::testing::Test {
 protected:
  CopyPlanTest() : cpu_(CpuDevice::Options{4}) {}

  OpKernelContext MakeContext() {
    OpKernelContext::Params params;
    params.node_name = &name_;
    params.eigen_cpu_device = &cpu_.eigen_device();
    return OpKernelContext(std::move(params));
  }

  // Runs the plan and checks every destination element against the definition; elements the
  // plan does not write must keep their initial value.
  template <typename T>
  void Check(const CopyPlan& plan, const Tensor& src, int64_t dst_size) {
    Tensor dst(src.dtype(), TensorShape{dst_size});
    Tensor want(src.dtype(), TensorShape{dst_size});
    std::vector<int64_t> idx(plan.axes.size(), 0);
    bool empty = false;
    for (const CopyAxis& a : plan.axes) empty |= a.size == 0;
    while (!empty) {
      int64_t s = plan.src_base;
      int64_t d = plan.dst_base;
      for (size_t k = 0; k < idx.size(); ++k) {
        const CopyAxis& a = plan.axes[k];
        s += a.src_offsets.empty() ? idx[k] * a.src_stride : a.src_offsets[idx[k]];
        d += idx[k] * a.dst_stride;
      }
      want.data<T>()[d] = src.data<T>()[s];
      int k = static_cast<int>(idx.size()) - 1;
      for (; k >= 0; --k) {
        if (++idx[k] < plan.axes[k].size) break;
        idx[k] = 0;
      }
      if (k < 0) break;
    }
    OpKernelContext c = MakeContext();
    ASSERT_TRUE(ExecuteCopyPlan(&c, plan, src, &dst).ok());
    for (int64_t i = 0; i < dst_size; ++i) {
      ASSERT_TRUE(dst.data<T>()[i] == want.data<T>()[i]) << "element " << i;
    }
  }

  std::string name_ = "copy";
  CpuDevice cpu_;
};

Tensor FloatIota(int64_t n) {
  Tensor t(DT_FLOAT, TensorShape{n});
  for (int64_t i = 0; i < n; ++i) t.data<float>()[i] = static_cast<float>(i);
  return t;
}

TEST_F(CopyPlanTest, LongContiguousRunIsChunked) {
  CopyPlan plan;
  plan.src_base = 3;
  plan.dst_base = 1;
  plan.AddAxis(100000, 1, 1);
  Check<float>(plan, FloatIota(100003), 100001);
}

TEST_F(CopyPlanTest, MergesAffineAxes) {
  // A dense [4, 5, 6] copy and a slice of its last dim.
  CopyPlan dense = DenseOutputPlan(TensorShape{4, 5, 6}, {30, 6, 1});
  Check<float>(dense, FloatIota(120), 120);
  CopyPlan slice = DenseOutputPlan(TensorShape{4, 5, 2}, {30, 6, 1}, /*src_base=*/3);
  Check<float>(slice, FloatIota(120), 40);
}

TEST_F(CopyPlanTest, TransposesInTiles) {
  // [70, 45] -> [45, 70]: partial blocks on both axes, 1-, 8- and 16-byte elements.
  CopyPlan plan = DenseOutputPlan(TensorShape{45, 70}, {1, 45});
  Check<float>(plan, FloatIota(70 * 45), 70 * 45);
  Tensor bytes(DT_UINT8, TensorShape{70 * 45});
  for (int i = 0; i < 70 * 45; ++i) bytes.data<uint8_t>()[i] = static_cast<uint8_t>(i * 7);
  Check<uint8_t>(plan, bytes, 70 * 45);
  Tensor complex(DT_COMPLEX128, TensorShape{70 * 45});
  for (int i = 0; i < 70 * 45; ++i) complex.data<std::complex<double>>()[i] = {1.0 * i, -1.0 * i};
  Check<std::complex<double>>(plan, complex, 70 * 45);
  // NHWC -> NCHW on [2, 5, 7, 3].
  CopyPlan nchw = DenseOutputPlan(TensorShape{2, 3, 5, 7}, {105, 1, 21, 3});
  Check<float>(nchw, FloatIota(210), 210);
}

TEST_F(CopyPlanTest, TableAxesCopyRuns) {
  CopyPlan plan;
  plan.AddAxis(3, 10, 8);
  plan.AddTableAxis({2, 1, 0, 1, 2, 3, 4, 3}, 1);  // a mirror-padded row
  Check<float>(plan, FloatIota(30), 24);
  CopyPlan gather;
  gather.AddTableAxis({20, 0, 10, 20}, 5);  // rows 2, 0, 1, 2 of a [3, 10] matrix, cols 0..4
  gather.AddAxis(5, 1, 1);
  Check<float>(gather, FloatIota(30), 20);
}

TEST_F(CopyPlanTest, NegativeAndZeroStrides) {
  CopyPlan reversed = DenseOutputPlan(TensorShape{3, 4}, {-4, -1}, /*src_base=*/11);
  Check<float>(reversed, FloatIota(12), 12);
  CopyPlan broadcast = DenseOutputPlan(TensorShape{5, 3, 4}, {0, 4, 0});
  Check<float>(broadcast, FloatIota(12), 60);
  CopyPlan strided;
  strided.src_base = 1;
  strided.AddAxis(7, 3, 2);  // every 3rd element into every 2nd slot
  Check<float>(strided, FloatIota(30), 14);
}

TEST_F(CopyPlanTest, LongAxesAreSplitAcrossUnits) {
  CopyPlan strided;
  strided.AddAxis(40000, 2, 1);
  Check<float>(strided, FloatIota(80000), 40000);
  std::vector<int64_t> reversed(10000);
  for (int64_t i = 0; i < 10000; ++i) reversed[i] = 9999 - i;
  CopyPlan runs;
  runs.AddTableAxis(reversed, 1);
  Check<float>(runs, FloatIota(10000), 10000);
  // Transposes of [2500, 3] and [1500, 40]: long inner axes, short and partial tile blocks.
  Check<float>(DenseOutputPlan(TensorShape{3, 2500}, {1, 3}), FloatIota(7500), 7500);
  Check<float>(DenseOutputPlan(TensorShape{40, 1500}, {1, 40}), FloatIota(60000), 60000);
}

TEST_F(CopyPlanTest, EmptyAxisCopiesNothing) {
  CopyPlan plan = DenseOutputPlan(TensorShape{3, 0, 4}, {0, 4, 1});
  Check<float>(plan, FloatIota(4), 4);
}

TEST_F(CopyPlanTest, ScalarCopy) {
  CopyPlan plan;
  plan.src_base = 5;
  plan.dst_base = 2;
  Check<float>(plan, FloatIota(6), 3);
}

TEST_F(CopyPlanTest, StringsAreCopiedAsStrings) {
  Tensor src(DT_STRING, TensorShape{6});
  for (int i = 0; i < 6; ++i) src.data<std::string>()[i] = std::string(20 + i, 'a' + i);
  Check<std::string>(DenseOutputPlan(TensorShape{3, 2}, {1, 3}), src, 6);
  Check<std::string>(DenseOutputPlan(TensorShape{2, 6}, {0, 1}), src, 12);
}

TEST_F(CopyPlanTest, RandomPermutationsMatchDefinition) {
  std::mt19937 rng(42);
  for (int trial = 0; trial < 200; ++trial) {
    const int rank = 1 + static_cast<int>(rng() % 5);
    std::vector<int64_t> dims(rank);
    for (auto& d : dims) d = 1 + static_cast<int64_t>(rng() % 6);
    std::vector<int> perm(rank);
    for (int i = 0; i < rank; ++i) perm[i] = i;
    std::shuffle(perm.begin(), perm.end(), rng);
    TensorShape in_shape(dims);
    const std::vector<int64_t> in_strides = RowMajorStrides(in_shape);
    TensorShape out_shape;
    std::vector<int64_t> src_strides;
    for (int p : perm) {
      out_shape.AddDim(dims[p]);
      src_strides.push_back(in_strides[p]);
    }
    Check<float>(DenseOutputPlan(out_shape, src_strides), FloatIota(in_shape.num_elements()),
                 in_shape.num_elements());
  }
}

// The loops both engines run: size-1 axes become a base offset, affine neighbours that step
// like one axis merge, tabled axes stay as they are, and an empty axis means no work.
TEST(MergedLoopsTest, FoldsMergesAndKeepsTables) {
  CopyPlan plan;
  plan.src_base = 5;
  plan.AddTableAxis({7}, 100);  // size 1: its one offset joins the base
  plan.AddAxis(2, 12, 12);
  plan.AddAxis(3, 4, 4);        // with the axis above: one axis of 6, stride 4
  plan.AddTableAxis({3, 0, 1}, 1);
  int64_t src_base = 0;
  std::optional<std::vector<LoopAxis>> loops = MergedLoops(plan, &src_base);
  ASSERT_TRUE(loops.has_value());
  EXPECT_EQ(src_base, 12);
  ASSERT_EQ(loops->size(), 2u);
  EXPECT_TRUE((*loops)[0].affine());
  EXPECT_EQ((*loops)[0].size, 6);
  EXPECT_EQ((*loops)[0].src_stride, 4);
  EXPECT_EQ((*loops)[0].dst_stride, 4);
  EXPECT_FALSE((*loops)[1].affine());
  EXPECT_EQ((*loops)[1].Src(0), 3);
  EXPECT_EQ((*loops)[1].table, &plan.axes[3].src_offsets);

  plan.AddAxis(0, 1, 1);
  EXPECT_FALSE(MergedLoops(plan, &src_base).has_value());
}

}  // namespace
}  // namespace array
}  // namespace tensord
