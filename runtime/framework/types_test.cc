#include "runtime/framework/types.h"

#include <gtest/gtest.h>

#include <climits>

namespace tensord {
namespace {

TEST(TypesTest, ReferenceTypesAreBasePlusOneHundred) {
  EXPECT_TRUE(IsRefType(static_cast<DataType>(101)));  // DT_FLOAT_REF
  EXPECT_EQ(BaseType(static_cast<DataType>(101)), DT_FLOAT);
  EXPECT_EQ(MakeRefType(DT_INT64), static_cast<DataType>(109));
  EXPECT_EQ(DataTypeString(MakeRefType(DT_FLOAT)), "float_ref");
  EXPECT_FALSE(IsRefType(DT_VARIANT));
}

// Regression (found by tests/fuzz:tensor_proto_fuzzer): every value above 100 counted as a
// reference type, so naming dtype 1073741823 in an error message recursed ten million levels
// deep and overflowed the stack (one TensorProto from a client took the server down).
TEST(TypesTest, UnknownValuesAreNamedWithoutRecursion) {
  EXPECT_FALSE(IsRefType(static_cast<DataType>(1073741823)));
  EXPECT_EQ(DataTypeString(static_cast<DataType>(1073741823)), "dtype_1073741823");
  EXPECT_EQ(DataTypeString(static_cast<DataType>(INT_MAX)), "dtype_2147483647");
  EXPECT_EQ(DataTypeString(static_cast<DataType>(150)), "dtype_50_ref");
  EXPECT_EQ(DataTypeString(static_cast<DataType>(-5)), "dtype_-5");
}

}  // namespace
}  // namespace tensord
