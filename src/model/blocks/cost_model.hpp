#pragma once
// The constants of the cost model the block kinds' estimates share (docs/running.md), and how
// they print a config value in a memory part's drivers.
#include <cstdio>
#include <string>

namespace ufl::model::cost_model {

inline constexpr double kFloat = sizeof(float), kDouble = sizeof(double);
// The process itself: code, libraries, OpenMP's thread stacks, logging.
inline constexpr double kProcessBytes = 40e6;
// The speed of the products inside a step, per thread: a 2020s x86 core's share of its float
// GEMM peak (75–105 GFLOP/s with AVX2/FMA, bench/results/latest.md), which the fused layer
// reaches at 50–75% and the fused transformer blocks at 70–95% (bench/results/transformer.md).
inline constexpr double kGflopsPerThread = 60;
// Elementwise work (softmax, scalings), per n² entry.
inline constexpr double kElementwiseFlops = 40;

// A config value as the user wrote it: "64", "0.5", "1e+06".
inline std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.15g", value);
  return text;
}

}  // namespace ufl::model::cost_model
