// Reference outputs were produced once with TensorFlow 2.21 (tf.raw_ops.StridedSlice on
// tf.reshape(tf.range(n, dtype=tf.int32), in_dims)): random sparse specs and mask combinations,
// and the specs Python's tf.Tensor.__getitem__ emits for common numpy-style expressions.
// `values` holds the whole output when it has at most 24 elements; larger outputs are checked
// with `checksum` = sum over i of (i + 1) * output[i].
#include "gtest/gtest.h"
#include "kernels/array/array_test_util.h"

namespace tensord {
namespace testing {
namespace {

struct Case {
  std::vector<int64_t> in_dims;
  std::vector<int32_t> begin, end, strides;
  int begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask;
  std::vector<int64_t> out_dims;
  std::vector<int32_t> values;
  int64_t checksum;
};

struct ErrorCase {
  std::vector<int64_t> in_dims;
  std::vector<int32_t> begin, end, strides;
  int begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask;
  const char* message;
};

// clang-format off
// Random specs.
const Case kRandomCases[] = {
    {{4, 1, 3}, {}, {}, {}, 0, 0, 0, 0, 0, {4, 1, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 0},
    {{4, 1, 3}, {}, {}, {}, 0, 0, 0, 0, 0, {4, 1, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 0},
    {{3, 4, 5}, {6, 1}, {-6, 3}, {1, 3}, 0, 2, 0, 0, 0, {0, 1, 5}, {}, 0},
    {{3, 4, 5}, {6, 6, 2}, {7, -5, 0}, {3, 1, 1}, 1, 6, 4, 6, 0, {1, 1, 4, 5}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19}, 0},
    {{2, 3, 2, 2}, {0, -6}, {2, -3}, {-2, 2}, 0, 0, 0, 0, 0, {0, 0, 2, 2}, {}, 0},
    {{2, 3, 2, 2}, {1}, {7}, {2}, 1, 0, 0, 0, 0, {1, 3, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 0},
    {{4, 1, 3}, {-5, -5}, {-7, 2}, {-1, -1}, 0, 1, 1, 0, 0, {4, 1, 0}, {}, 0},
    {{6}, {-7}, {-1}, {2}, 0, 1, 0, 0, 0, {3}, {0, 2, 4}, 0},
    {{4, 1, 3}, {}, {}, {}, 0, 0, 0, 0, 0, {4, 1, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 0},
    {{2, 3, 2, 2}, {-5}, {1}, {3}, 0, 0, 0, 0, 0, {1, 3, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 0},
    {{3, 4, 5}, {}, {}, {}, 0, 0, 0, 0, 0, {3, 4, 5}, {}, 71980},
    {{3, 4, 5}, {7}, {7}, {1}, 0, 0, 0, 1, 0, {1, 3, 4, 5}, {}, 71980},
    {{2, 3, 2, 2}, {-4, 1, 6, 4}, {-3, -6, 1, 4}, {1, 1, 1, 1}, 1, 0, 0, 0, 0, {0, 0, 0, 0}, {}, 0},
    {{2, 3, 2, 2}, {-5, 6}, {-7, -1}, {-3, -3}, 0, 0, 0, 0, 0, {0, 0, 2, 2}, {}, 0},
    {{6}, {0}, {0}, {-1}, 0, 0, 1, 0, 0, {6}, {0, 1, 2, 3, 4, 5}, 0},
    {{4, 1, 3}, {-5, 4}, {1, 2}, {3, -3}, 3, 3, 0, 0, 0, {2, 1, 3}, {0, 1, 2, 9, 10, 11}, 0},
    {{3, 4, 5}, {-4, 2}, {5, -4}, {1, 2}, 0, 0, 1, 0, 0, {3, 4, 0}, {}, 0},
    {{2, 3, 2, 2}, {0}, {3}, {1}, 0, 0, 0, 0, 0, {2, 3, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}, 0},
    {{2, 3, 2, 2}, {-3, -6, 1, 2}, {-7, 6, -4, 1}, {1, -1, 1, 1}, 14, 11, 0, 0, 0, {2, 3, 0, 2}, {}, 0},
    {{2, 3, 2, 2}, {-6, 4, 3, 1}, {6, -1, 6, 2}, {-1, -2, 3, 3}, 8, 12, 1, 0, 0, {2, 0, 0, 1}, {}, 0},
    {{2, 3, 2, 2}, {-1}, {-3}, {1}, 0, 0, 0, 0, 0, {0, 3, 2, 2}, {}, 0},
    {{2, 3, 2, 2}, {-2, -2, -3}, {2, 7, -1}, {-1, 2, 2}, 4, 0, 4, 0, 0, {0, 1, 2, 2}, {}, 0},
    {{6}, {6}, {7}, {1}, 0, 0, 0, 0, 0, {0}, {}, 0},
    {{4, 1, 3}, {-3, 3, 2}, {0, -2, -4}, {1, -1, -1}, 0, 1, 0, 0, 0, {3, 1, 3}, {5, 4, 3, 8, 7, 6, 11, 10, 9}, 0},
    {{2, 3, 2, 2}, {6}, {3}, {1}, 0, 0, 1, 0, 1, {2, 3, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}, 0},
    {{4, 1, 3}, {0, 2}, {-7, -7}, {1, -2}, 0, 3, 0, 0, 1, {1, 3}, {0, 1, 2}, 0},
    {{4, 1, 3}, {}, {}, {}, 0, 0, 0, 0, 0, {4, 1, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 0},
    {{3, 4, 5}, {}, {}, {}, 0, 0, 0, 0, 0, {3, 4, 5}, {}, 71980},
    {{2, 3, 2, 2}, {-4}, {6}, {3}, 0, 0, 1, 0, 0, {2, 3, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}, 0},
    {{2, 3, 2, 2}, {7, -7, 7, -3}, {6, 3, -2, 3}, {1, -1, -3, 1}, 0, 0, 0, 0, 0, {0, 0, 1, 2}, {}, 0},
    {{6}, {}, {}, {}, 0, 0, 0, 0, 0, {6}, {0, 1, 2, 3, 4, 5}, 0},
    {{3, 4, 5}, {}, {}, {}, 0, 0, 0, 0, 0, {3, 4, 5}, {}, 71980},
    {{6}, {}, {}, {}, 0, 0, 0, 0, 0, {6}, {0, 1, 2, 3, 4, 5}, 0},
    {{2, 3, 2, 2}, {-4, 5}, {-2, -6}, {2, 1}, 1, 3, 0, 2, 0, {1, 1, 3, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 0},
    {{3, 4, 5}, {}, {}, {}, 0, 0, 0, 0, 0, {3, 4, 5}, {}, 71980},
    {{4, 1, 3}, {-1}, {2}, {-2}, 1, 0, 1, 1, 0, {4, 1, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 0},
    {{4, 1, 3}, {}, {}, {}, 0, 0, 0, 0, 0, {4, 1, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 0},
    {{6}, {-2}, {-1}, {1}, 0, 0, 0, 0, 0, {1}, {4}, 0},
    {{3, 4, 5}, {6, -7, 2, 1, 3}, {-4, 6, 2, 5, 5}, {-2, 2, 1, 1, 1}, 0, 0, 0, 19, 21, {1, 1, 3, 1, 5}, {45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59}, 0},
    {{4, 1, 3}, {}, {}, {}, 0, 0, 0, 0, 0, {4, 1, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 0},
    {{2, 3, 2, 2}, {}, {}, {}, 0, 0, 0, 0, 0, {2, 3, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}, 0},
    {{4, 1, 3}, {-6, -5}, {-5, 5}, {-2, 1}, 1, 0, 0, 0, 0, {2, 1, 3}, {9, 10, 11, 3, 4, 5}, 0},
    {{2, 3, 2, 2}, {-6, 1}, {2, 1}, {-3, 3}, 0, 3, 1, 0, 1, {2, 3, 2, 1}, {1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23}, 0},
    {{4, 1, 3}, {4, -2}, {6, -6}, {1, 1}, 0, 0, 0, 3, 0, {1, 1, 4, 1, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 0},
    {{2, 3, 2, 2}, {-3, 7}, {1, 7}, {3, -3}, 0, 0, 0, 2, 0, {1, 1, 3, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 0},
    {{6}, {}, {}, {}, 0, 0, 0, 0, 0, {6}, {0, 1, 2, 3, 4, 5}, 0},
    {{2, 3, 2, 2}, {-1}, {7}, {-1}, 0, 0, 1, 0, 0, {2, 3, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}, 0},
    {{2, 3, 2, 2}, {-4, -5, -7, 2}, {2, -3, -1, -2}, {3, 1, -1, -1}, 0, 2, 0, 7, 0, {1, 1, 1, 1, 3, 2, 2}, {12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}, 0},
    {{2, 3, 2, 2}, {-5, -4}, {-4, -6}, {1, 1}, 0, 3, 2, 1, 0, {1, 2, 3, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}, 0},
    {{4, 1, 3}, {-4}, {6}, {1}, 0, 1, 1, 0, 0, {4, 1, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 0},
    {{3, 4, 5}, {-2}, {-2}, {-1}, 1, 1, 1, 0, 1, {3, 4, 5}, {}, 71980},
    {{2, 3, 2, 2}, {}, {}, {}, 0, 0, 0, 0, 0, {2, 3, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}, 0},
    {{4, 1, 3}, {-7}, {4}, {1}, 0, 0, 0, 0, 0, {4, 1, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 0},
    {{4, 1, 3}, {}, {}, {}, 0, 0, 0, 0, 0, {4, 1, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 0},
    {{6}, {}, {}, {}, 0, 0, 0, 0, 0, {6}, {0, 1, 2, 3, 4, 5}, 0},
    {{6}, {-4}, {-2}, {1}, 0, 0, 1, 0, 1, {6}, {0, 1, 2, 3, 4, 5}, 0},
    {{2, 3, 2, 2}, {}, {}, {}, 0, 0, 0, 0, 0, {2, 3, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}, 0},
    {{6}, {}, {}, {}, 0, 0, 0, 0, 0, {6}, {0, 1, 2, 3, 4, 5}, 0},
    {{6}, {}, {}, {}, 0, 0, 0, 0, 0, {6}, {0, 1, 2, 3, 4, 5}, 0},
    {{3, 4, 5}, {3, -3, -7}, {-4, 0, 1}, {3, 1, -3}, 0, 0, 0, 7, 6, {1, 1, 1, 3, 4, 5}, {}, 71980},
    {{2, 3, 2, 2}, {1}, {5}, {2}, 0, 0, 0, 0, 0, {1, 3, 2, 2}, {12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}, 0},
    {{3, 4, 5}, {3}, {4}, {2}, 1, 0, 1, 1, 0, {3, 4, 5}, {}, 71980},
    {{4, 1, 3}, {0, 5}, {-5, 7}, {1, -3}, 3, 0, 1, 2, 0, {4, 1, 3, 1}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 0},
    {{4, 1, 3}, {}, {}, {}, 0, 0, 0, 0, 0, {4, 1, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 0},
    {{6}, {}, {}, {}, 0, 0, 0, 0, 0, {6}, {0, 1, 2, 3, 4, 5}, 0},
    {{2, 3, 2, 2}, {}, {}, {}, 0, 0, 0, 0, 0, {2, 3, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}, 0},
    {{4, 1, 3}, {-3, -1}, {2, 4}, {1, -3}, 0, 3, 0, 2, 0, {3, 1, 1, 3}, {3, 4, 5, 6, 7, 8, 9, 10, 11}, 0},
    {{6}, {}, {}, {}, 0, 0, 0, 0, 0, {6}, {0, 1, 2, 3, 4, 5}, 0},
    {{3, 4, 5}, {5, 6, -7}, {5, 0, 3}, {3, 2, 1}, 5, 0, 2, 0, 2, {1, 4, 3}, {0, 1, 2, 5, 6, 7, 10, 11, 12, 15, 16, 17}, 0},
    {{2, 3, 2, 2}, {-1, 1, -3}, {-3, -1, -6}, {-1, 1, 1}, 0, 0, 4, 7, 0, {1, 1, 2, 3, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}, 0},
    {{2, 3, 2, 2}, {-2, -2, 3, -4}, {-5, -2, -3, -4}, {1, 1, -2, 3}, 0, 15, 0, 0, 0, {2, 2, 1, 1}, {6, 10, 18, 22}, 0},
    {{3, 4, 5}, {}, {}, {}, 0, 0, 0, 0, 0, {3, 4, 5}, {}, 71980},
    {{3, 4, 5}, {-6}, {-4}, {-3}, 1, 1, 0, 0, 0, {1, 4, 5}, {40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59}, 0},
    {{6}, {1, -6, -5}, {-4, -1, 3}, {-1, -3, 1}, 0, 3, 0, 6, 0, {2, 1, 1}, {1, 0}, 0},
    {{4, 1, 3}, {-7}, {-6}, {-2}, 0, 0, 1, 0, 1, {4, 1, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 0},
    {{2, 3, 2, 2}, {2}, {-7}, {-2}, 0, 0, 0, 0, 0, {1, 3, 2, 2}, {12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}, 0},
    {{4, 1, 3}, {4, 2, -4}, {7, -6, -1}, {1, 1, 1}, 3, 0, 2, 4, 0, {4, 1, 3, 1}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 0},
    {{2, 3, 2, 2}, {5}, {-6}, {-2}, 0, 0, 1, 0, 0, {2, 3, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}, 0},
    {{3, 4, 5}, {}, {}, {}, 0, 0, 0, 0, 0, {3, 4, 5}, {}, 71980},
    {{6}, {-7}, {3}, {2}, 0, 0, 0, 0, 0, {2}, {0, 2}, 0},
};

// Numpy-style expressions, in order: x[:, 0], x[..., ::-1], x[::-2], x[1:-1], x[None, :, 1],
// x[-1], x[-1, -1, -1], x[..., 1:4:2, None], x[:, ::-3, -2:], x[5:, :, :],
// x[-100:100, 3:-100:-1], x[1, ..., 2], x[..., None, None], y[::-1], y[4:1:-1], y[1:100:4],
// y[-2], z[0, 0, 0, 0] (shrink 15 on 4-D, as in half_plus_two_mkl), z[:, 1:, ..., :1], w[2:3],
// w[:, :, 1:2].
const Case kNumpyCases[] = {
    {{3, 4, 5}, {0, 0}, {0, 1}, {1, 1}, 1, 1, 0, 0, 2, {3, 5}, {0, 1, 2, 3, 4, 20, 21, 22, 23, 24, 40, 41, 42, 43, 44}, 0},
    {{3, 4, 5}, {0, 0}, {0, 0}, {1, -1}, 2, 2, 1, 0, 0, {3, 4, 5}, {}, 71740},
    {{3, 4, 5}, {0}, {0}, {-2}, 1, 1, 0, 0, 0, {2, 4, 5}, {}, 17520},
    {{3, 4, 5}, {1}, {-1}, {1}, 0, 0, 0, 0, 0, {1, 4, 5}, {20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39}, 0},
    {{3, 4, 5}, {0, 0, 1}, {0, 0, 2}, {1, 1, 1}, 2, 2, 0, 1, 4, {1, 3, 5}, {5, 6, 7, 8, 9, 25, 26, 27, 28, 29, 45, 46, 47, 48, 49}, 0},
    {{3, 4, 5}, {-1}, {0}, {1}, 0, 0, 0, 0, 1, {4, 5}, {40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59}, 0},
    {{3, 4, 5}, {-1, -1, -1}, {0, 0, 0}, {1, 1, 1}, 0, 0, 0, 0, 7, {}, {59}, 0},
    {{3, 4, 5}, {0, 1, 0}, {0, 4, 0}, {1, 2, 1}, 0, 0, 1, 4, 0, {3, 4, 2, 1}, {1, 3, 6, 8, 11, 13, 16, 18, 21, 23, 26, 28, 31, 33, 36, 38, 41, 43, 46, 48, 51, 53, 56, 58}, 0},
    {{3, 4, 5}, {0, 0, -2}, {0, 0, 0}, {1, -3, 1}, 3, 7, 0, 0, 0, {3, 2, 2}, {18, 19, 3, 4, 38, 39, 23, 24, 58, 59, 43, 44}, 0},
    {{3, 4, 5}, {5, 0, 0}, {0, 0, 0}, {1, 1, 1}, 6, 7, 0, 0, 0, {0, 4, 5}, {}, 0},
    {{3, 4, 5}, {-100, 3}, {100, -100}, {1, -1}, 0, 0, 0, 0, 0, {3, 4, 5}, {}, 68230},
    {{3, 4, 5}, {1, 0, 2}, {2, 0, 3}, {1, 1, 1}, 0, 0, 2, 0, 5, {4}, {22, 27, 32, 37}, 0},
    {{3, 4, 5}, {0, 0, 0}, {0, 0, 0}, {1, 1, 1}, 0, 0, 1, 6, 0, {3, 4, 5, 1, 1}, {}, 71980},
    {{6}, {0}, {0}, {-1}, 1, 1, 0, 0, 0, {6}, {5, 4, 3, 2, 1, 0}, 0},
    {{6}, {4}, {1}, {-1}, 0, 0, 0, 0, 0, {3}, {4, 3, 2}, 0},
    {{6}, {1}, {100}, {4}, 0, 0, 0, 0, 0, {2}, {1, 5}, 0},
    {{6}, {-2}, {-1}, {1}, 0, 0, 0, 0, 1, {}, {4}, 0},
    {{2, 3, 2, 2}, {0, 0, 0, 0}, {1, 1, 1, 1}, {1, 1, 1, 1}, 0, 0, 0, 0, 15, {}, {0}, 0},
    {{2, 3, 2, 2}, {0, 1, 0, 0}, {0, 0, 0, 1}, {1, 1, 1, 1}, 9, 3, 4, 0, 0, {2, 2, 2, 1}, {4, 6, 8, 10, 16, 18, 20, 22}, 0},
    {{4, 1, 3}, {2}, {3}, {1}, 0, 0, 0, 0, 0, {1, 1, 3}, {6, 7, 8}, 0},
    {{4, 1, 3}, {0, 0, 1}, {0, 0, 2}, {1, 1, 1}, 3, 3, 0, 0, 0, {4, 1, 1}, {1, 4, 7, 10}, 0},
};

const ErrorCase kErrorCases[] = {
    {{3, 4, 5}, {4, -6, -6, 5, -2}, {-4, -7, -7, 5, -7}, {1, 3, 3, -1, -2}, 3, 0, 0, 0, 21, "Index out of range using input dim 3; input has only 3 dims"},
    {{3, 4, 5}, {-6, -7, -2, -5}, {4, 0, 3, -1}, {-1, -3, -2, 3}, 8, 0, 0, 0, 0, "Index out of range using input dim 3; input has only 3 dims"},
    {{6}, {-3, 0, -7, -1, -3}, {3, 5, -7, -5, -3}, {-1, 1, -1, 3, -3}, 0, 0, 0, 0, 0, "Index out of range using input dim 1; input has only 1 dims"},
    {{2, 3, 2, 2}, {-4, -2, -6, 4, 4}, {5, -5, 2, 7, -3}, {-1, 1, 3, -2, -2}, 1, 0, 0, 26, 29, "only stride 1 allowed on non-range indexing."},
    {{2, 3, 2, 2}, {3, 7, -3, -1}, {-2, 3, 2, 6}, {-1, -2, 1, 1}, 13, 0, 0, 0, 4, "slice index -1 of dimension 2 out of bounds."},
    {{6}, {-5, -1, -3}, {-7, -6, 0}, {2, 1, 2}, 0, 0, 4, 0, 2, "Index out of range using input dim 1; input has only 1 dims"},
    {{3, 4, 5}, {-3, 4}, {0, 7}, {1, 1}, 0, 0, 0, 0, 2, "slice index 4 of dimension 1 out of bounds."},
    {{3, 4, 5}, {-7, -4, 5, -4, 6}, {2, 2, 1, 4, -5}, {-1, 1, -3, 3, 1}, 0, 12, 0, 0, 28, "Index out of range using input dim 3; input has only 3 dims"},
    {{3, 4, 5}, {4, -1, -4, -4}, {0, -3, 6, 6}, {-1, 1, 2, 3}, 0, 0, 0, 0, 0, "Index out of range using input dim 3; input has only 3 dims"},
    {{2, 3, 2, 2}, {1, 6, -4}, {2, 0, 3}, {3, 1, 3}, 0, 6, 0, 1, 7, "slice index 6 of dimension 0 out of bounds."},
    {{6}, {7, 0, -7}, {1, -1, 5}, {-2, -2, -2}, 0, 0, 0, 0, 6, "Index out of range using input dim 1; input has only 1 dims"},
    {{6}, {-3, 6, 1, -2, 6}, {1, 1, 0, 5, 3}, {-2, 1, -3, -1, -1}, 13, 4, 0, 17, 0, "Index out of range using input dim 1; input has only 1 dims"},
};
// clang-format on

::tensorflow::NodeDef Node(int begin_mask, int end_mask, int ellipsis_mask, int new_axis_mask,
                           int shrink_axis_mask, DataType t = DT_INT32, DataType index = DT_INT32) {
  return NodeBuilder("StridedSlice")
      .Attr("T", t)
      .Attr("Index", index)
      .Attr("begin_mask", begin_mask)
      .Attr("end_mask", end_mask)
      .Attr("ellipsis_mask", ellipsis_mask)
      .Attr("new_axis_mask", new_axis_mask)
      .Attr("shrink_axis_mask", shrink_axis_mask)
      .Build();
}

Tensor IndexTensor(const std::vector<int32_t>& values, DataType index) {
  const std::vector<int64_t> dims = {static_cast<int64_t>(values.size())};
  switch (index) {
    case DT_INT16:
      return AsTensor<int16_t>(std::vector<int16_t>(values.begin(), values.end()), dims);
    case DT_INT64:
      return AsTensor<int64_t>(std::vector<int64_t>(values.begin(), values.end()), dims);
    default:
      return AsTensor<int32_t>(values, dims);
  }
}

void CheckCase(const Case& c) {
  for (DataType index : {DT_INT32, DT_INT64, DT_INT16}) {
    for (DeviceType device : TestDevices()) {
      SCOPED_TRACE(DataTypeString(index));
      Tensor y = RunOne(Node(c.begin_mask, c.end_mask, c.ellipsis_mask, c.new_axis_mask,
                             c.shrink_axis_mask, DT_INT32, index),
                        {Iota<int32_t>(c.in_dims), IndexTensor(c.begin, index),
                         IndexTensor(c.end, index), IndexTensor(c.strides, index)},
                        device);
      ASSERT_EQ(y.shape(), TensorShape(c.out_dims)) << y.shape().DebugString();
      if (!c.values.empty() || y.NumElements() == 0) {
        ExpectTensorEqual(y, AsTensor<int32_t>(c.values, c.out_dims));
      } else {
        int64_t checksum = 0;
        for (int64_t i = 0; i < y.NumElements(); ++i) checksum += (i + 1) * y.data<int32_t>()[i];
        EXPECT_EQ(checksum, c.checksum);
      }
    }
  }
}

TEST(StridedSliceOpTest, RandomSpecsMatchTensorFlow) {
  for (size_t i = 0; i < std::size(kRandomCases); ++i) {
    SCOPED_TRACE(::testing::Message() << "random case " << i);
    CheckCase(kRandomCases[i]);
  }
}

TEST(StridedSliceOpTest, NumpyExpressionsMatchTensorFlow) {
  for (size_t i = 0; i < std::size(kNumpyCases); ++i) {
    SCOPED_TRACE(::testing::Message() << "numpy case " << i);
    CheckCase(kNumpyCases[i]);
  }
}

TEST(StridedSliceOpTest, DocumentedExample) {
  // x[1, 2:4, None, ..., :-3:-1, :] on a (5, 5, 5, 5, 5, 5) tensor.
  CheckCase(Case{{5, 5, 5, 5, 5, 5},
                 {1, 2, 0, 0, 0, 0},
                 {2, 4, 0, 0, -3, 0},
                 {1, 1, 1, 1, -1, 1},
                 48,
                 32,
                 8,
                 4,
                 1,
                 {2, 1, 5, 5, 2, 5},
                 {},
                 653155875});
}

TEST(StridedSliceOpTest, ErrorsMatchTensorFlow) {
  for (const ErrorCase& c : kErrorCases) {
    ExpectInvalidArgument(
        Node(c.begin_mask, c.end_mask, c.ellipsis_mask, c.new_axis_mask, c.shrink_axis_mask),
        {Iota<int32_t>(c.in_dims), Int32s(c.begin), Int32s(c.end), Int32s(c.strides)}, c.message);
  }
  const Tensor x = Iota<int32_t>({2, 3, 4});
  ExpectInvalidArgument(Node(0, 0, 0, 0, 1), {x, Int32s({1}), Int32s({2}), Int32s({-1})},
                        "only stride 1 allowed on non-range indexing.");
  ExpectInvalidArgument(Node(0, 0, 0, 0, 1), {x, Int32s({-3}), Int32s({2}), Int32s({1})},
                        "slice index -1 of dimension 0 out of bounds.");
  ExpectInvalidArgument(Node(0, 0, 0, 0, 0), {x, Int32s({1}), Int32s({2}), Int32s({0})},
                        "strides[0] must be non-zero");
  ExpectInvalidArgument(Node(0, 0, 0, 0, 0), {x, Int32s({1, 1}), Int32s({2}), Int32s({1})},
                        "Expected begin, end, and strides to be 1D equal size tensors, but got "
                        "shapes [2], [1], and [1] instead.");
  ExpectInvalidArgument(Node(0, 0, 3, 0, 0), {x, Int32s({0, 0}), Int32s({1, 1}), Int32s({1, 1})},
                        "Multiple ellipses in slice spec not allowed");
  ExpectInvalidArgument(Node(0, 0, 0, 0, 1),
                        {Iota<int32_t>({0, 3}), Int32s({0}), Int32s({1}), Int32s({1})},
                        "slice index 0 of dimension 0 out of bounds.");
}

TEST(StridedSliceOpTest, Scalars) {
  const Tensor s = AsTensor<int32_t>({5}, {});
  ExpectTensorEqual(RunOne(Node(0, 0, 0, 0, 0), {s, Int32s({}), Int32s({}), Int32s({})}), s);
  ExpectTensorEqual(RunOne(Node(0, 0, 1, 0, 0), {s, Int32s({0}), Int32s({1}), Int32s({1})}), s);
  ExpectTensorEqual(RunOne(Node(0, 0, 0, 1, 0), {s, Int32s({0}), Int32s({1}), Int32s({1})}),
                    Int32s({5}));
  ExpectInvalidArgument(Node(0, 0, 0, 0, 1), {s, Int32s({0}), Int32s({1}), Int32s({1})},
                        "Attempting to slice scalar input.");
  ExpectInvalidArgument(Node(0, 0, 0, 1, 0), {s, Int32s({0, 0}), Int32s({1, 1}), Int32s({1, 1})},
                        "Attempting to slice scalar input.");
}

TEST(StridedSliceOpTest, OtherDtypes) {
  // x[::-1, 1] on strings and floats.
  const Tensor s = Strings({"a", "b", "c", "d", "e", "f"}, {3, 2});
  ExpectTensorEqual(
      RunOne(Node(1, 1, 0, 0, 2, DT_STRING), {s, Int32s({0, 1}), Int32s({0, 2}), Int32s({-1, 1})}),
      Strings({"f", "d", "b"}, {3}));
  ExpectTensorEqual(RunOne(Node(1, 1, 0, 0, 2, DT_FLOAT),
                           {Iota<float>({3, 2}), Int32s({0, 1}), Int32s({0, 2}), Int32s({-1, 1})}),
                    AsTensor<float>({5, 3, 1}, {3}));
}

TEST(StridedSliceOpTest, ContiguousSlicesShareTheInputBuffer) {
  const Tensor x = Iota<int32_t>({4, 5});
  Tensor rows = RunOne(Node(0, 0, 0, 0, 0), {x, Int32s({1}), Int32s({3}), Int32s({1})});
  ExpectTensorEqual(rows, Iota<int32_t>({2, 5}, 5));
  EXPECT_TRUE(rows.SharesBufferWith(x));
  // tf.shape(x)[0]: begin [0], end [1], strides [1], shrink 1 -> a scalar.
  const Tensor shape = Int32s({7, 3});
  Tensor first = RunOne(Node(0, 0, 0, 0, 1), {shape, Int32s({0}), Int32s({1}), Int32s({1})});
  ExpectTensorEqual(first, AsTensor<int32_t>({7}, {}));
  EXPECT_TRUE(first.SharesBufferWith(shape));
  Tensor column = RunOne(Node(1, 1, 0, 0, 2), {x, Int32s({0, 1}), Int32s({0, 2}), Int32s({1, 1})});
  ExpectTensorEqual(column, Int32s({1, 6, 11, 16}));
  EXPECT_FALSE(column.SharesBufferWith(x));
}

}  // namespace
}  // namespace testing
}  // namespace tensord
