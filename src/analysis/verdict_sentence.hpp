#pragma once
// The verdict said in words for the last line of `ufl train` and `ufl analyze`: which operator,
// which test made it that operator, and whether it emerged and why (docs/analyze.md).
#include <nlohmann/json.hpp>
#include <string>

namespace ufl::analysis {

// From a run's metrics.json (its verdict, emerged, claimed, scores and thresholds), e.g.
// "verdict: convolution, not emerged — M̄ is Toeplitz and local (τ 0.991 ≥ 0.9, ℓ 0.979 ≥ 0.9)
// but reaches only η 0.31 < eta_min 0.9 of the optimum's accuracy; claimed: convolution (does
// not hold)".
std::string verdict_sentence(const nlohmann::json& metrics);

}  // namespace ufl::analysis
