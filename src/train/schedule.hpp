#pragma once
#include <algorithm>
#include <cmath>
#include <numbers>

namespace ufl::train {

// Cosine decay (docs/experiment.md §2): lr(t) = lr_final + (lr − lr_final)(1 + cos(πt/T))/2, t =
// 0..T−1.
inline double cosine_learning_rate(int step, int total_steps, double lr, double lr_final) {
  return lr_final + (lr - lr_final) * (1 + std::cos(std::numbers::pi * step / total_steps)) / 2;
}

// Linear warm-up, then cosine decay (docs/transformer.md §3), for step t = 1…T: lr·t/W while
// t ≤ W, then lr_final + (lr − lr_final)(1 + cos(πp))/2 with p = (t − W − 1)/max(1, T − W − 1).
inline double warmup_cosine_learning_rate(int step, int total_steps, int warmup_steps, double lr,
                                          double lr_final) {
  if (step <= warmup_steps) return lr * step / warmup_steps;
  const double progress =
      double(step - warmup_steps - 1) / std::max(1, total_steps - warmup_steps - 1);
  return lr_final + (lr - lr_final) * (1 + std::cos(std::numbers::pi * progress)) / 2;
}

// The learning rate of step t = 1…T under `settings`: Section 8's cosine from the first step
// without warm-up (bit-identical to before warm-up existed), else warmup_cosine_learning_rate.
template <class Settings>
double learning_rate_at(int step, const Settings& settings) {
  return settings.warmup_steps > 0
             ? warmup_cosine_learning_rate(step, settings.steps, settings.warmup_steps, settings.lr,
                                           settings.lr_final)
             : cosine_learning_rate(step - 1, settings.steps, settings.lr, settings.lr_final);
}

}  // namespace ufl::train
