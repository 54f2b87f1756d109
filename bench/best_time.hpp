#pragma once
// The timing loop of the kernel benchmarks (small_gemm_bench, kernel_check, libxsmm_check): one
// untimed call for the caches, repetitions doubled until a run lasts 10 ms, then `trials` timed
// runs sharing `seconds`, and the best of them, since a busy core shows in some runs, not in all.
#include <algorithm>
#include <chrono>

namespace ufl::bench {

template <class Product>
double seconds_per_call(Product product, double seconds, int trials) {
  using Clock = std::chrono::steady_clock;
  product();
  int reps = 1;
  for (;;) {
    const auto start = Clock::now();
    for (int r = 0; r < reps; ++r) product();
    if (std::chrono::duration<double>(Clock::now() - start).count() > 0.01) break;
    reps *= 2;
  }
  reps = std::max(1, int(reps * seconds / 0.01 / trials));
  double best = 1e30;
  for (int t = 0; t < trials; ++t) {
    const auto start = Clock::now();
    for (int r = 0; r < reps; ++r) product();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count() / reps);
  }
  return best;
}

}  // namespace ufl::bench
