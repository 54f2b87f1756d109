#pragma once
// The product kernel's speed on this machine, measured once per process (about 20 ms): the run's
// time estimate scales from it rather than from a constant (docs/running.md, "The estimate"), so
// a machine or a build where the kernel is slow (issue 38: 2 GFLOP/s on AVX2 with a kernel built
// for AVX-512's registers) is foreseen before the run starts.
namespace ufl {

// GFLOP/s of one thread of small_gemm on a product of the reference transformer step
// (64 × 384 × 128, operands in cache), the best of a few timed repetitions.
double measured_kernel_gflops();

}  // namespace ufl
