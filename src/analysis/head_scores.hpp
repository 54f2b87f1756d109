#pragma once
// What one head of a transformer block became (docs/transformer.md §5): from its mixing matrices
// M(X) on a fixed set of held-out windows, the scores of docs/experiment.md §3 that apply to a
// causal matrix — input dependence ι, Toeplitz τ, locality ℓ, effective rank and k99 of M̄ — with
// the gate γ, the mean attention distance, the dominant offset (1 for a previous-token head), and
// the closest special case among the causal families by parsimony.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "analysis/analysis_config.hpp"
#include "analysis/input_dependence.hpp"

namespace ufl::analysis {

// The share of ‖M̄‖² a family's fit must keep to describe a head (docs/universality.md's
// parsimony share).
inline constexpr double kHeadFitShare = 0.95;

// From the statistics of the head's M(X) over the windows (streamed, so that a run of many large
// heads never holds every window's matrix at once).
nlohmann::json head_scores(const OperatorStatistics& windows, std::optional<double> gamma,
                           const AnalysisConfig& thresholds);
// The same from the windows' matrices.
nlohmann::json head_scores(const std::vector<Eigen::MatrixXd>& windows, std::optional<double> gamma,
                           const AnalysisConfig& thresholds);

// One word for tables and figures, from head_scores' output: "content" (input-dependent, ι ≥
// iota_min, whether its rows are softmax distributions or blend in a linear branch), "self",
// "previous-token" or "offset k" (one offset holds half of ‖M̄‖² or more), "local" (a causal band),
// "low-rank", or "none".
std::string head_kind(const nlohmann::json& scores);

}  // namespace ufl::analysis
