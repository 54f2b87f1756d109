#pragma once
// Adam (Kingma & Ba 2015) with bias correction; β = (0.9, 0.999), ε = 1e-8 as in docs/experiment.md
// §2. Each element is updated on its own, so the update is the same at any thread count.
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
  // Defined in adam.cpp, the one file built with -fno-math-errno (CMakeLists.txt), so that the
  // loop's std::sqrt is vectorised.
  void step(float* params, const float* grads, double learning_rate, float grad_scale = 1.0f);
};

}  // namespace ufl::train
