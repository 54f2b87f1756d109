#pragma once
// Clipping of the global gradient norm (docs/transformer.md §3), as torch's clip_grad_norm_: when
// ‖g‖₂ > max_norm every gradient is scaled by max_norm/(‖g‖₂ + 1e-6). The norm is summed in
// double in element order, so it is the same at any thread count.
#include <cmath>
#include <cstddef>

namespace ufl::train {

// Returns ‖g‖₂ before clipping; max_norm ≤ 0 clips nothing.
inline double clip_gradient_norm(float* grads, std::size_t count, double max_norm) {
  double squares = 0;
  for (std::size_t e = 0; e < count; ++e) squares += double(grads[e]) * grads[e];
  const double norm = std::sqrt(squares);
  if (max_norm > 0 && norm > max_norm) {
    const float factor = float(max_norm / (norm + 1e-6));
    for (std::size_t e = 0; e < count; ++e) grads[e] *= factor;
  }
  return norm;
}

}  // namespace ufl::train
