// ufl_small_gemm_bench: the small-matrix kernel (tensor/small_gemm.hpp) on the products of one
// transformer training step at the reference configuration (bench/reference_shapes.hpp), each
// with the row strides the fused ops give it, one thread. Prints a Markdown table: per shape the
// calls per step, the GFLOP/s (best of `trials` timed runs) and its share of `--peak` (GFLOP/s of
// one thread, from ufl_gemm_peak), and the kernel's time per step summed over the shapes.
//
//   ufl_small_gemm_bench [--peak GFLOPS] [--seconds S] [--trials K]
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "best_time.hpp"
#include "options.hpp"
#include "reference_shapes.hpp"

namespace {

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
  for (const ufl::bench::ProductShape& s : ufl::bench::reference_shapes()) {
    ufl::bench::ProductOperands operands(s);
    auto product = [&] { operands.multiply(s); };
    const double flops = 2.0 * s.rows * s.cols * s.inner;
    const double best = ufl::bench::seconds_per_call(product, seconds, trials);
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
