// ufl_gemm_peak: the float GEMM rate this machine reaches, the yardstick for ufl's achieved
// GFLOP/s: the better of Eigen's GEMM and ufl's own small-matrix kernel (tensor/small_gemm.hpp,
// which the fused transformer ops run) on the same N×N operands. On some CPUs one is well ahead
// of the other (on an AVX-512 AMD EPYC, ufl's kernel was measured faster than Eigen's), and a
// yardstick below what the step itself reaches would print shares above 100%. ufl builds Eigen
// with EIGEN_DONT_PARALLELIZE (its own OpenMP loops over the batch are the parallel unit), so the
// peak at T threads is T independent single-threaded GEMMs, one per thread, run at the same time
// in one OpenMP parallel region.
// Prints one JSON line: {"threads":T,"size":N,"gflops":..,"gflops_per_thread":..,
// "eigen_gflops":..,"ufl_kernel_gflops":..}. Each rate is the best of `trials` trials: total FLOPs
// of all threads / wall time; "gflops" is the better of the two.
#include <omp.h>

#include <Eigen/Core>
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
using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

[[noreturn]] void usage(const std::string& problem) {
  std::fprintf(stderr,
               "ufl_gemm_peak: %s\nusage: ufl_gemm_peak [--threads T] [--size N] [--seconds S] "
               "[--trials K]\n",
               problem.c_str());
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 1, size = 512, trials = 3;
  double seconds = 0.5;  // per trial
  ufl::bench::read_options(
      argc, argv, false,
      [&](const std::string& key, const std::string& value) {
        if (key == "--threads")
          threads = std::stoi(value);
        else if (key == "--size")
          size = std::stoi(value);
        else if (key == "--seconds")
          seconds = std::stod(value);
        else if (key == "--trials")
          trials = std::stoi(value);
        else
          return false;
        return true;
      },
      usage);
  if (threads < 1 || size < 1 || trials < 1 || seconds <= 0) usage("values must be positive");
  omp_set_num_threads(threads);

  const double flops_per_gemm = 2.0 * size * size * size;
  // c = a·b by Eigen's GEMM or by ufl's kernel.
  auto eigen = [](const Matrix& a, const Matrix& b, Matrix& c) { c.noalias() = a * b; };
  auto kernel = [size](const Matrix& a, const Matrix& b, Matrix& c) {
    ufl::small_gemm<float>(false, false, {size, size, size}, {a.data(), size}, {b.data(), size},
                           {c.data(), size});
  };
  int team = 1;
  // The best rate of `product` over the trials.
  auto peak = [&](auto product) {
    // Repetitions per trial, from one single-threaded product (after a first, untimed one).
    int reps = 1;
    {
      Matrix a = Matrix::Random(size, size), b = Matrix::Random(size, size), c(size, size);
      product(a, b, c);
      const auto start = Clock::now();
      product(a, b, c);
      const double one = std::chrono::duration<double>(Clock::now() - start).count();
      reps = std::max(1, int(seconds / std::max(one, 1e-9)));
    }
    double best = 0.0;
    for (int trial = 0; trial < trials; ++trial) {
      double wall = 0.0;
      Clock::time_point start;  // shared: set and read by whichever thread runs each `single`
#pragma omp parallel num_threads(threads)
      {
        // Each thread owns its operands (allocated and first touched by that thread).
        Matrix a = Matrix::Random(size, size), b = Matrix::Random(size, size), c(size, size);
        product(a, b, c);  // warm caches and the code path
#pragma omp barrier
#pragma omp single
        {
          team = omp_get_num_threads();
          start = Clock::now();
          wall = 0.0;
        }  // implicit barrier: everybody starts together
        for (int r = 0; r < reps; ++r) {
          product(a, b, c);
          a(0, 0) += c(0, 0) * 1e-30f;  // keep every product observable
        }
#pragma omp barrier
#pragma omp single
        wall = std::chrono::duration<double>(Clock::now() - start).count();
      }
      best = std::max(best, team * reps * flops_per_gemm / wall / 1e9);
    }
    return best;
  };
  const double eigen_gflops = peak(eigen), kernel_gflops = peak(kernel);
  const double best = std::max(eigen_gflops, kernel_gflops);
  std::printf(
      "{\"threads\":%d,\"size\":%d,\"gflops\":%.6g,\"gflops_per_thread\":%.6g,"
      "\"eigen_gflops\":%.6g,\"ufl_kernel_gflops\":%.6g}\n",
      team, size, best, best / team, eigen_gflops, kernel_gflops);
  return 0;
}
