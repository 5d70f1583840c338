// Broadcasting comparisons (Equal, NotEqual, Less, LessEqual, Greater, GreaterEqual) and
// LogicalAnd / LogicalOr; all produce bool.
#include <string>

#include "kernels/math/cwise_binary_op.h"

namespace tensord {
namespace math {
namespace {

#define TENSORD_COMPARISON_FN(NAME, EXPR)           \
  struct NAME {                                     \
    template <typename T>                           \
    bool operator()(const T& x, const T& y) const { \
      return EXPR;                                  \
    }                                               \
  }
TENSORD_COMPARISON_FN(EqualFn, x == y);
TENSORD_COMPARISON_FN(NotEqualFn, x != y);
TENSORD_COMPARISON_FN(LessFn, x < y);
TENSORD_COMPARISON_FN(LessEqualFn, x <= y);
TENSORD_COMPARISON_FN(GreaterFn, x > y);
TENSORD_COMPARISON_FN(GreaterEqualFn, x >= y);
TENSORD_COMPARISON_FN(LogicalAndFn, x&& y);
TENSORD_COMPARISON_FN(LogicalOrFn, x || y);
#undef TENSORD_COMPARISON_FN

// Equal / NotEqual with incompatible_shape_error = false return a scalar (false for Equal,
// true for NotEqual) instead of failing when the shapes do not broadcast.
template <typename T, typename F, bool kIncompatibleResult>
class EqualityOp : public BinaryOp<T, bool, F> {
 public:
  explicit EqualityOp(OpKernelConstruction* c) : BinaryOp<T, bool, F>(c) {
    c->GetAttr("incompatible_shape_error", &incompatible_shape_error_);
  }

  absl::Status Compute(OpKernelContext* c) const override {
    if (!incompatible_shape_error_ &&
        !BroadcastPlan::Make({c->input(0).shape(), c->input(1).shape()})) {
      c->allocate_output(0, DT_BOOL, TensorShape{})->scalar<bool>() = kIncompatibleResult;
      return absl::OkStatus();
    }
    return BinaryOp<T, bool, F>::Compute(c);
  }

 private:
  bool incompatible_shape_error_ = true;
};

#define REGISTER_EQUALITY(T)                                                                     \
  TENSORD_REGISTER_KERNEL(                                                                       \
      KernelDef("Equal").Device(DeviceType::kCpu).TypeConstraint("T", DataTypeToEnum<T>::value), \
      EqualityOp<T, EqualFn, false>);                                                            \
  TENSORD_REGISTER_KERNEL(KernelDef("NotEqual")                                                  \
                              .Device(DeviceType::kCpu)                                          \
                              .TypeConstraint("T", DataTypeToEnum<T>::value),                    \
                          EqualityOp<T, NotEqualFn, true>)

#define REGISTER_ORDERING(T)                                  \
  TENSORD_REGISTER_BINARY("Less", T, bool, LessFn);           \
  TENSORD_REGISTER_BINARY("LessEqual", T, bool, LessEqualFn); \
  TENSORD_REGISTER_BINARY("Greater", T, bool, GreaterFn);     \
  TENSORD_REGISTER_BINARY("GreaterEqual", T, bool, GreaterEqualFn)

REGISTER_EQUALITY(float);
REGISTER_EQUALITY(double);
REGISTER_EQUALITY(int32_t);
REGISTER_EQUALITY(int64_t);
REGISTER_EQUALITY(bool);
REGISTER_EQUALITY(std::string);
REGISTER_ORDERING(float);
REGISTER_ORDERING(double);
REGISTER_ORDERING(int32_t);
REGISTER_ORDERING(int64_t);

TENSORD_REGISTER_KERNEL(KernelDef("LogicalAnd").Device(DeviceType::kCpu),
                        BinaryOp<bool, bool, LogicalAndFn>);
TENSORD_REGISTER_KERNEL(KernelDef("LogicalOr").Device(DeviceType::kCpu),
                        BinaryOp<bool, bool, LogicalOrFn>);

#undef REGISTER_ORDERING
#undef REGISTER_EQUALITY

}  // namespace
}  // namespace math
}  // namespace tensord
