#include "tensor/kernel_rate.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

#include "tensor/small_gemm.hpp"

namespace ufl {

double measured_kernel_gflops() {
  static const double rate = [] {
    using Clock = std::chrono::steady_clock;
    // The sizes as run-time values, as a step's products have them: a kernel specialised for
    // constants would be measured instead (and GCC warns about its unreachable tail loop).
    volatile std::ptrdiff_t sizes[3] = {64, 384, 128};
    const std::ptrdiff_t rows = sizes[0], cols = sizes[1], inner = sizes[2];
    std::vector<float> a(rows * inner), b(inner * cols), c(rows * cols);
    for (std::size_t e = 0; e < a.size(); ++e) a[e] = float(e % 13) * 0.01f;
    for (std::size_t e = 0; e < b.size(); ++e) b[e] = float(e % 7) * 0.01f;
    auto product = [&] {
      small_gemm<float>(false, false, {rows, cols, inner}, {a.data(), inner}, {b.data(), cols},
                        {c.data(), cols});
    };
    product();  // the first call pays for the panel buffer and cold caches
    // Five trials of 4 ms each, the best: a busy core shows in some trials, not in all.
    double best = 0;
    for (int trial = 0; trial < 5; ++trial) {
      const auto start = Clock::now();
      int calls = 0;
      double seconds = 0;
      do {
        product();
        ++calls;
        seconds = std::chrono::duration<double>(Clock::now() - start).count();
      } while (seconds < 4e-3);
      best = std::max(best, 2.0 * rows * cols * inner * calls / seconds / 1e9);
    }
    volatile float kept = c[0];  // the products are used
    (void)kept;
    return best;
  }();
  return rate;
}

}  // namespace ufl
