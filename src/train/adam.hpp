#pragma once
// Adam (Kingma & Ba 2015) with bias correction; β = (0.9, 0.999), ε = 1e-8 as in docs/experiment.md
// §2. Each element is updated on its own, so the update is the same at any thread count.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ufl::train {

// With weight_decay > 0 it is AdamW (Loshchilov & Hutter 2019) as torch.optim.AdamW: each element
// whose `decay` flag is set first shrinks, p ← p·(1 − lr·weight_decay), then takes the Adam step
// (docs/transformer.md §3). With weight_decay = 0 the update is Adam's, unchanged.
struct Adam {
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;
  double weight_decay = 0;
  std::vector<std::uint8_t> decay;  // per element: 1 where weight decay applies
  std::vector<float> first_moment, second_moment;
  long long step_count = 0;

  explicit Adam(std::size_t parameter_count)
      : first_moment(parameter_count, 0.0f), second_moment(parameter_count, 0.0f) {}

  // Elementwise, so the threads that share the loop never change a result. `grad_scale`
  // multiplies every gradient first (the clipping factor, train/clip.hpp), in the same pass.
  void step(float* params, const float* grads, double learning_rate, float grad_scale = 1.0f) {
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
};

}  // namespace ufl::train
