// Adam's update (train/adam.hpp). This file alone is compiled with -fno-math-errno: with errno set
// on a negative argument (GCC's default), a loop that calls std::sqrt is not vectorised, and the
// update ran one element at a time (6.8 % of a transformer step, bench/README.md). The square
// root's value is the same either way (IEEE sqrt is exact to the rounding, and v̂ ≥ 0 here), and no
// other file changes, so results are bit-identical.
#include "train/adam.hpp"

#include <cmath>

namespace ufl::train {

void Adam::step(float* params, const float* grads, double learning_rate, float grad_scale) {
  ++step_count;
  const bool decays = weight_decay > 0;
  const float shrink = float(1 - learning_rate * weight_decay);
  const float b1 = float(beta1), b2 = float(beta2), eps = float(epsilon);
  const float correction1 = float(1 - std::pow(beta1, double(step_count)));
  const float correction2 = float(1 - std::pow(beta2, double(step_count)));
  const float lr = float(learning_rate);
  const std::ptrdiff_t count = static_cast<std::ptrdiff_t>(first_moment.size());
  float* m = first_moment.data();
  float* v = second_moment.data();
  const std::uint8_t* decayed = decays ? decay.data() : nullptr;
  const bool scaled = grad_scale != 1.0f;
#pragma omp parallel for schedule(static) if (count >= (1 << 16))
  for (std::ptrdiff_t e = 0; e < count; ++e) {
    // Branch-free (a select, not a jump), so the loop is vectorised.
    if (decays) params[e] *= decayed[e] != 0 ? shrink : 1.0f;
    const float grad = scaled ? grads[e] * grad_scale : grads[e];
    m[e] = b1 * m[e] + (1 - b1) * grad;
    v[e] = b2 * v[e] + (1 - b2) * grad * grad;
    const float m_hat = m[e] / correction1, v_hat = v[e] / correction2;
    params[e] -= lr * m_hat / (std::sqrt(v_hat) + eps);
  }
}

}  // namespace ufl::train
