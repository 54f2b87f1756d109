#pragma once
// The seeds' measures of a token model's heads (docs/head_structure.md §2), written as heads.json:
// per head, the spectrum of M(X) over the windows (seed 001) beside the same model at
// initialisation and the uniform causal average; the validation loss with every head's M
// truncated to rank k; how far each head's scores are from the distance form (seed 002); and Ω's
// spectrum and what its top rank-one parts read (seed 003).
#include <filesystem>
#include <nlohmann/json.hpp>

#include "analysis/analysis_config.hpp"
#include "data/tokens.hpp"
#include "model/model.hpp"

namespace ufl::analysis {

// Windows of the split the measures use (the first ones, as the head maps).
inline constexpr int kStructureWindows = 64;
// Rank-one parts of Ω described per head.
inline constexpr int kOmegaParts = 4;

// `trained` and `initial` are the same model after and before training (initial: the run's seed).
nlohmann::json head_structure(model::Model<float>& trained, model::Model<float>& initial,
                              const data::TokenSplit& split, int windows);

// What each block's heads became (docs/transformer.md §5): every head's M(X) on the first
// `windows` windows of `split`, scored (analysis/head_scores.hpp) and its mean M̄ written as
// heads/block<l>_head<k>.npy under `folder`; returns the metrics' "layers" array.
nlohmann::json analyze_heads(model::Model<float>& model, const data::TokenSplit& split, int windows,
                             const AnalysisConfig& thresholds, const std::filesystem::path& folder);

// The ranks the truncation test tries: 1, 2, 4, … below n.
std::vector<int> truncation_ranks(int n);

}  // namespace ufl::analysis
