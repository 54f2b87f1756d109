// ufl_kernel_check: ufl's small-matrix kernel (tensor/small_gemm.hpp) against Eigen's GEMM in the
// same process, one thread, for the instruction set it is compiled for: at N×N×N (default 512)
// and on the reference transformer step's products (bench/reference_shapes.hpp, weighted by their
// calls per step). It builds from the kernel's header, Eigen and this folder's headers alone, so
// bench/kernel_check.sh compiles it for several instruction sets in seconds each (docs/building.md,
// "Instruction sets").
//
//   ufl_kernel_check [--size N] [--seconds S] [--trials K] [--check RATIO] [--table]
//
// Prints one JSON line: {"target":..,"size":N,"kernel_gflops":..,"eigen_gflops":..,
// "reference_kernel_gflops":..,"reference_eigen_gflops":..,"kernel_vs_eigen":..,
// "reference_vs_eigen":..,"reference_vs_peak":..}, the peak being the better of the two at N³.
// With --table, first a Markdown table of every reference shape. With --check RATIO the exit code
// is 1 when the kernel is below RATIO × Eigen at N³ or on the reference shapes: a ratio measured in
// one run, so a busy machine slows both sides alike (a guard, not a timed test).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "best_time.hpp"
#include "options.hpp"
#include "reference_shapes.hpp"
#include "tensor/eigen.hpp"
#include "tensor/small_gemm.hpp"

namespace {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Map = Eigen::Map<Matrix, 0, Eigen::OuterStride<>>;
using ConstMap = Eigen::Map<const Matrix, 0, Eigen::OuterStride<>>;

[[noreturn]] void usage(const std::string& problem) {
  std::fprintf(stderr,
               "ufl_kernel_check: %s\nusage: ufl_kernel_check [--size N] [--seconds S] "
               "[--trials K] [--check RATIO] [--table 1]\n",
               problem.c_str());
  std::exit(problem == "help" ? 0 : 2);
}

// The same product by Eigen, on maps with the same strides.
void eigen_product(const ufl::bench::ProductShape& s, ufl::bench::ProductOperands& o) {
  const Eigen::Index a_rows = s.transpose_a ? s.inner : s.rows;
  const Eigen::Index a_cols = s.transpose_a ? s.rows : s.inner;
  const ConstMap a(o.a.data(), a_rows, a_cols, Eigen::OuterStride<>(s.lda));
  const ConstMap b(o.b.data(), s.inner, s.cols, Eigen::OuterStride<>(s.ldb));
  Map c(o.c.data(), s.rows, s.cols, Eigen::OuterStride<>(s.ldc));
  if (s.transpose_a) {
    if (s.accumulate)
      c.noalias() += a.transpose() * b;
    else
      c.noalias() = a.transpose() * b;
  } else {
    if (s.accumulate)
      c.noalias() += a * b;
    else
      c.noalias() = a * b;
  }
  if (s.accumulate) o.c[0] *= 0.5f;
}

}  // namespace

int main(int argc, char** argv) {
  int size = 512, trials = 3;
  double seconds = 0.3, check = 0;
  bool table = false;
  ufl::bench::read_options(
      argc, argv, true,
      [&](const std::string& key, const std::string& value) {
        if (key == "--size")
          size = std::stoi(value);
        else if (key == "--seconds")
          seconds = std::stod(value);
        else if (key == "--trials")
          trials = std::stoi(value);
        else if (key == "--check")
          check = std::stod(value);
        else if (key == "--table")
          table = std::stoi(value) != 0;
        else
          return false;
        return true;
      },
      usage);
  if (size < 1 || trials < 1 || seconds <= 0 || check < 0) usage("values must be positive");

  // N³: both on the same operands.
  Matrix a = Matrix::Random(size, size), b = Matrix::Random(size, size), c(size, size);
  const double square_flops = 2.0 * size * size * size;
  const double kernel_seconds = ufl::bench::seconds_per_call(
      [&] {
        ufl::small_gemm<float>(false, false, {size, size, size}, {a.data(), size}, {b.data(), size},
                               {c.data(), size});
      },
      seconds, trials);
  const double eigen_seconds =
      ufl::bench::seconds_per_call([&] { c.noalias() = a * b; }, seconds, trials);
  const double kernel_gflops = square_flops / kernel_seconds / 1e9;
  const double eigen_gflops = square_flops / eigen_seconds / 1e9;
  const double peak = std::max(kernel_gflops, eigen_gflops);

  // The reference step's products, each timed alone (operands hot in cache), weighted by calls.
  if (table) {
    std::printf(
        "| product | m×n×k | A | calls/step | kernel GFLOP/s | Eigen GFLOP/s | kernel ms/step |\n");
    std::printf("|---|---|---|---|---|---|---|\n");
  }
  double kernel_ms = 0, eigen_ms = 0, reference_flops = 0;
  for (const ufl::bench::ProductShape& s : ufl::bench::reference_shapes()) {
    ufl::bench::ProductOperands operands(s);
    const double flops = 2.0 * s.rows * s.cols * s.inner;
    const double kernel =
        ufl::bench::seconds_per_call([&] { operands.multiply(s); }, seconds / 8, trials);
    const double eigen =
        ufl::bench::seconds_per_call([&] { eigen_product(s, operands); }, seconds / 8, trials);
    kernel_ms += kernel * s.calls_per_step * 1e3;
    eigen_ms += eigen * s.calls_per_step * 1e3;
    reference_flops += flops * s.calls_per_step;
    if (table)
      std::printf("| %s | %td×%td×%td | %s | %.0f | %.1f | %.1f | %.3f |\n", s.what, s.rows, s.cols,
                  s.inner, s.transpose_a ? "T" : "N", s.calls_per_step, flops / kernel / 1e9,
                  flops / eigen / 1e9, kernel * s.calls_per_step * 1e3);
  }
  const double reference_kernel = reference_flops / kernel_ms / 1e6;
  const double reference_eigen = reference_flops / eigen_ms / 1e6;
  if (table)
    std::printf("| **all** | | | | %.1f | %.1f | %.3f |\n\n", reference_kernel, reference_eigen,
                kernel_ms);
  std::printf(
      "{\"target\":\"%s\",\"size\":%d,\"kernel_gflops\":%.4g,\"eigen_gflops\":%.4g,"
      "\"reference_kernel_gflops\":%.4g,\"reference_eigen_gflops\":%.4g,\"kernel_vs_eigen\":%.3f,"
      "\"reference_vs_eigen\":%.3f,\"reference_vs_peak\":%.3f}\n",
      ufl::kKernelTarget, size, kernel_gflops, eigen_gflops, reference_kernel, reference_eigen,
      kernel_gflops / eigen_gflops, reference_kernel / reference_eigen, reference_kernel / peak);
  if (check > 0) {
    const bool square_ok = kernel_gflops >= check * eigen_gflops;
    const bool reference_ok = reference_kernel >= check * reference_eigen;
    if (!square_ok || !reference_ok) {
      std::fprintf(stderr,
                   "ufl_kernel_check (%s): the kernel is below %.2f x Eigen's GEMM (%s): %.1f "
                   "against %.1f GFLOP/s\n",
                   ufl::kKernelTarget, check, square_ok ? "reference shapes" : "N^3",
                   square_ok ? reference_kernel : kernel_gflops,
                   square_ok ? reference_eigen : eigen_gflops);
      return 1;
    }
  }
  return 0;
}
