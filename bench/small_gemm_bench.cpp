// ufl_small_gemm_bench: the small-matrix kernel (tensor/small_gemm.hpp) on the products of one
// transformer training step at the reference configuration (n = 64, D = 128, 4 heads of width 32,
// MLP 4D, batch 12, 4 blocks; bench/README.md), each with the row strides the fused ops give it,
// one thread. Prints a Markdown table: per shape the calls per step, the GFLOP/s (best of
// `trials` timed runs) and its share of `--peak` (GFLOP/s of one thread, from ufl_gemm_peak), and
// the kernel's time per step summed over the shapes.
//
//   ufl_small_gemm_bench [--peak GFLOPS] [--seconds S] [--trials K]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "options.hpp"
#include "tensor/small_gemm.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct Shape {
  const char* what;
  std::ptrdiff_t rows, cols, inner;
  bool transpose_a, accumulate;
  std::ptrdiff_t lda, ldb, ldc;
  double calls_per_step;
};

// The reference configuration's products (heads_kernel.hpp, mlp_kernel.hpp, score_core.hpp,
// causal_product.hpp, batch_product.hpp): 48 sample-blocks (batch 12 × 4 blocks).
std::vector<Shape> reference_shapes() {
  const double samples = 48, blocks = 4;
  std::vector<Shape> s = {
      {"x̂·W_in", 64, 384, 128, false, false, 128, 384, 384, samples},
      {"Z·W_o (+)", 64, 128, 128, false, true, 128, 128, 128, samples},
      {"x̂·W_1", 64, 512, 128, false, false, 128, 512, 512, samples},
      {"g·W_2 (+)", 64, 128, 512, false, true, 512, 128, 128, samples},
      {"dOut·W_oᵀ", 64, 128, 128, false, false, 128, 128, 128, samples},
      {"dP·W_inᵀ", 64, 128, 384, false, false, 384, 128, 128, samples},
      {"dOut·W_2ᵀ", 64, 512, 128, false, false, 128, 512, 512, samples},
      {"dA·W_1ᵀ", 64, 128, 512, false, false, 512, 128, 128, samples},
      {"dW_in tile", 64, 64, 128, true, true, 128, 384, 384, blocks * 2 * 6 * 6},
      {"dW_o tile", 64, 64, 128, true, true, 128, 128, 128, blocks * 2 * 2 * 6},
      {"dW_1 tile", 64, 64, 128, true, true, 128, 512, 512, blocks * 2 * 8 * 6},
      {"dW_2 tile", 64, 64, 128, true, true, 512, 128, 128, blocks * 8 * 2 * 6},
  };
  // Per head (4 per sample-block), per causal block row of 16: the scores Q·Kᵀ and dOut·Vᵀ,
  // the mixing M·V and dS·K, the transposed mixing Mᵀ·dOut and dSᵀ·Q.
  const double heads = samples * 4;
  for (int i1 = 16; i1 <= 64; i1 += 16) {
    s.push_back({"causal scores", 16, i1, 32, false, false, 384, 64, 64, 2 * heads});
    s.push_back({"causal mix", 16, 32, i1, false, false, 64, 384, 128, 2 * heads});
    s.push_back({"causal mixᵀ", 16, 32, 80 - i1, true, false, 64, 128, 32, 2 * heads});
  }
  return s;
}

[[noreturn]] void usage(const std::string& problem) {
  std::fprintf(stderr,
               "ufl_small_gemm_bench: %s\nusage: ufl_small_gemm_bench [--peak GFLOPS] "
               "[--seconds S] [--trials K]\n",
               problem.c_str());
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  double peak = 0, seconds = 0.2;
  int trials = 5;
  ufl::bench::read_options(
      argc, argv, false,
      [&](const std::string& key, const std::string& value) {
        if (key == "--peak")
          peak = std::stod(value);
        else if (key == "--seconds")
          seconds = std::stod(value);
        else if (key == "--trials")
          trials = std::stoi(value);
        else
          return false;
        return true;
      },
      usage);
  std::printf("| product | m×n×k | A | calls/step | GFLOP/s | %% of peak | ms/step |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  double total_ms = 0, total_flops = 0;
  for (const Shape& s : reference_shapes()) {
    const std::ptrdiff_t a_rows = s.transpose_a ? s.inner : s.rows;
    std::vector<float> a(a_rows * s.lda), b(s.inner * s.ldb), c(s.rows * s.ldc);
    for (std::size_t e = 0; e < a.size(); ++e) a[e] = float((e * 7919) % 1000) * 1e-3f - 0.5f;
    for (std::size_t e = 0; e < b.size(); ++e) b[e] = float((e * 104729) % 1000) * 1e-3f - 0.5f;
    auto product = [&] {
      ufl::small_gemm<float>(s.transpose_a, s.accumulate, {s.rows, s.cols, s.inner},
                             {a.data(), s.lda}, {b.data(), s.ldb}, {c.data(), s.ldc});
      if (s.accumulate) c[0] *= 0.5f;  // keep the accumulated values bounded
    };
    const double flops = 2.0 * s.rows * s.cols * s.inner;
    product();
    int reps = 1;
    for (;;) {
      const auto start = Clock::now();
      for (int r = 0; r < reps; ++r) product();
      if (std::chrono::duration<double>(Clock::now() - start).count() > 0.01) break;
      reps *= 2;
    }
    const auto one = [&] {
      const auto start = Clock::now();
      for (int r = 0; r < reps; ++r) product();
      return std::chrono::duration<double>(Clock::now() - start).count() / reps;
    };
    reps = std::max(1, int(reps * seconds / 0.01 / trials));
    double best = 1e30;
    for (int t = 0; t < trials; ++t) best = std::min(best, one());
    const double gflops = flops / best / 1e9, ms = best * s.calls_per_step * 1e3;
    total_ms += ms;
    total_flops += flops * s.calls_per_step;
    std::printf("| %s | %td×%td×%td | %s | %.0f | %.1f | %s | %.3f |\n", s.what, s.rows, s.cols,
                s.inner, s.transpose_a ? "T" : "N", s.calls_per_step, gflops,
                peak > 0 ? (std::to_string(int(100 * gflops / peak + 0.5)) + " %").c_str() : "–",
                ms);
  }
  const double gflops = total_flops / total_ms / 1e6;
  std::printf("| **all** | | | | %.1f | %s | %.3f |\n", gflops,
              peak > 0 ? (std::to_string(int(100 * gflops / peak + 0.5)) + " %").c_str() : "–",
              total_ms);
  return 0;
}
