// ufl_libxsmm_check: libxsmm's small-matrix kernels (Debian's libxsmm-dev, generated at run time
// for this CPU) beside ufl's kernel (tensor/small_gemm.hpp) on the reference transformer step's
// products (bench/reference_shapes.hpp) and at N³, one thread, operands hot in cache; for the
// question of issue 38 whether ufl should call libxsmm (bench/README.md, "libxsmm"). Built only by
// bench/libxsmm_check.sh: ufl itself does not link libxsmm.
//
//   ufl_libxsmm_check [--size N] [--seconds S] [--trials K]
//
// libxsmm is column-major: a row-major C = op(A)·B is the column-major Cᵀ = Bᵀ·op(A)ᵀ, so each
// product is dispatched as M = cols, N = rows, with B as libxsmm's A and A as its B (transposed
// for Aᵀ·B). libxsmm 1.17 generates code for α = 1 and β ∈ {0, 1} only, and refuses (a null
// kernel) a transposed operand on some shapes: those rows print "–".
#include <libxsmm.h>

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
               "ufl_libxsmm_check: %s\nusage: ufl_libxsmm_check [--size N] [--seconds S] "
               "[--trials K]\n",
               problem.c_str());
  std::exit(problem == "help" ? 0 : 2);
}

// libxsmm's kernel for the row-major product of `s`, or null where it generates none.
libxsmm_smmfunction dispatch(const ufl::bench::ProductShape& s) {
  const libxsmm_blasint m = s.cols, n = s.rows, k = s.inner;
  const libxsmm_blasint lda = s.ldb, ldb = s.lda, ldc = s.ldc;
  const float alpha = 1, beta = s.accumulate ? 1 : 0;
  const int flags = s.transpose_a ? LIBXSMM_GEMM_FLAG_TRANS_B : LIBXSMM_GEMM_FLAG_NONE;
  const int prefetch = LIBXSMM_PREFETCH_NONE;
  return libxsmm_smmdispatch(m, n, k, &lda, &ldb, &ldc, &alpha, &beta, &flags, &prefetch);
}

}  // namespace

int main(int argc, char** argv) {
  int size = 512, trials = 3;
  double seconds = 0.3;
  ufl::bench::read_options(
      argc, argv, true,
      [&](const std::string& key, const std::string& value) {
        if (key == "--size")
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
  if (size < 1 || trials < 1 || seconds <= 0) usage("values must be positive");
  libxsmm_init();
  std::printf("libxsmm %s, code for %s; ufl's kernel for %s\n\n", LIBXSMM_VERSION,
              libxsmm_get_target_arch(), ufl::kKernelTarget);
  std::printf("| product | m×n×k | A | calls/step | ufl GFLOP/s | libxsmm GFLOP/s | same bits |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  std::vector<ufl::bench::ProductShape> shapes = ufl::bench::reference_shapes();
  shapes.insert(shapes.begin(), {"N³", size, size, size, false, false, size, size, size, 0});
  double ufl_ms = 0, xsmm_ms = 0, flops_total = 0;
  bool every_shape = true;
  for (const ufl::bench::ProductShape& s : shapes) {
    ufl::bench::ProductOperands ufl_operands(s), xsmm_operands(s);
    const double flops = 2.0 * s.rows * s.cols * s.inner;
    const libxsmm_smmfunction kernel = dispatch(s);
    // Same inputs, one product each from zero: are the results the same bits?
    std::fill(ufl_operands.c.begin(), ufl_operands.c.end(), 0.0f);
    std::fill(xsmm_operands.c.begin(), xsmm_operands.c.end(), 0.0f);
    std::string same = "–";
    if (kernel) {
      ufl::small_gemm<float>(s.transpose_a, s.accumulate, {s.rows, s.cols, s.inner},
                             {ufl_operands.a.data(), s.lda}, {ufl_operands.b.data(), s.ldb},
                             {ufl_operands.c.data(), s.ldc});
      kernel(xsmm_operands.b.data(), xsmm_operands.a.data(), xsmm_operands.c.data());
      same = ufl_operands.c == xsmm_operands.c ? "yes" : "no";
    }
    const double ufl_seconds =
        ufl::bench::seconds_per_call([&] { ufl_operands.multiply(s); }, seconds / 8, trials);
    double xsmm_seconds = 0;
    if (kernel)
      xsmm_seconds = ufl::bench::seconds_per_call(
          [&] {
            kernel(xsmm_operands.b.data(), xsmm_operands.a.data(), xsmm_operands.c.data());
            if (s.accumulate) xsmm_operands.c[0] *= 0.5f;
          },
          seconds / 8, trials);
    char xsmm_text[32] = "–";
    if (kernel) std::snprintf(xsmm_text, sizeof xsmm_text, "%.1f", flops / xsmm_seconds / 1e9);
    std::printf("| %s | %td×%td×%td | %s | %.0f | %.1f | %s | %s |\n", s.what, s.rows, s.cols,
                s.inner, s.transpose_a ? "T" : "N", s.calls_per_step, flops / ufl_seconds / 1e9,
                xsmm_text, same.c_str());
    if (s.calls_per_step > 0) {
      flops_total += flops * s.calls_per_step;
      ufl_ms += ufl_seconds * s.calls_per_step * 1e3;
      // A shape libxsmm does not generate would fall back to ufl's kernel.
      xsmm_ms += (kernel ? xsmm_seconds : ufl_seconds) * s.calls_per_step * 1e3;
      every_shape = every_shape && kernel != nullptr;
    }
  }
  std::printf("| **the step's products** | | | | %.1f (%.2f ms) | %.1f (%.2f ms)%s | |\n",
              flops_total / ufl_ms / 1e6, ufl_ms, flops_total / xsmm_ms / 1e6, xsmm_ms,
              every_shape ? "" : ", ufl's kernel where libxsmm has none");
  libxsmm_finalize();
  return 0;
}
