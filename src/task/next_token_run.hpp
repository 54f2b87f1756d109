#pragma once
#include "analysis/analysis_config.hpp"
#include "data/tokens.hpp"
#include "task/run.hpp"

namespace ufl::task {

// What each block's heads became (docs/transformer.md §5): every head's M(X) on the first
// `windows` windows of `split`, scored (analysis/head_scores.hpp) and its mean M̄ written as
// heads/block<l>_head<k>.npy under `folder`; returns the metrics' "layers" array.
nlohmann::json analyze_heads(model::Model<float>& model, const data::TokenSplit& split, int windows,
                             const analysis::AnalysisConfig& thresholds,
                             const std::filesystem::path& folder);

}  // namespace ufl::task
