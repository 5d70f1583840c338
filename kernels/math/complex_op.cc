// Complex(real, imag) with attrs T (float, double) and Tout (complex64, complex128): the complex
// number real + imag·i, element by element with broadcasting (tf.complex).
#include <complex>

#include "kernels/math/cwise_binary_op.h"

namespace tensord {
namespace math {
namespace {

struct ComplexFn {
  template <typename T>
  std::complex<T> operator()(const T& re, const T& im) const {
    return std::complex<T>(re, im);
  }
};

TENSORD_REGISTER_BINARY("Complex", float, std::complex<float>, ComplexFn);
TENSORD_REGISTER_BINARY("Complex", double, std::complex<double>, ComplexFn);

}  // namespace
}  // namespace math
}  // namespace tensord
