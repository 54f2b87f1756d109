#pragma once
// The constants of the cost model the block kinds' estimates share (docs/running.md), and how
// they print a config value in a memory part's drivers.
#include <cstdio>
#include <string>

namespace ufl::model::cost_model {

inline constexpr double kFloat = sizeof(float), kDouble = sizeof(double);
// The process itself: code, libraries, OpenMP's thread stacks, logging.
inline constexpr double kProcessBytes = 40e6;
// The share of the product kernel's rate (tensor/kernel_rate.hpp, measured when a run starts) that
// a training step reaches per thread: the fused layer at 50–75 % and the fused transformer blocks
// at 55–65 % of the GEMM peak (bench/README.md). Without a measurement, the step's rate is
// TrainingShape's default, 60 GFLOP/s (a 2020s x86 core with AVX2/FMA at this share).
inline constexpr double kStepShareOfKernel = 0.6;
// Elementwise work (softmax, scalings), per n² entry.
inline constexpr double kElementwiseFlops = 40;

// A config value as the user wrote it: "64", "0.5", "1e+06".
inline std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.15g", value);
  return text;
}

}  // namespace ufl::model::cost_model
