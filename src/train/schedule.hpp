#pragma once
#include <cmath>
#include <numbers>

namespace ufl::train {

// Cosine decay (spec §2): lr(t) = lr_final + (lr − lr_final)(1 + cos(πt/T))/2, t = 0..T−1.
inline double cosine_learning_rate(int step, int total_steps, double lr, double lr_final) {
  return lr_final + (lr - lr_final) * (1 + std::cos(std::numbers::pi * step / total_steps)) / 2;
}

}  // namespace ufl::train
