#pragma once
// What each head of each transformer block became (docs/transformer.md §5), for every task: from
// each head's M(X) on a fixed set of held-out windows, the scores of analysis/head_scores.hpp, and
// the head's mean M̄ written as heads/block<l>_head<k>.npy.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <vector>

#include "analysis/analysis_config.hpp"
#include "model/model.hpp"

namespace ufl::analysis {

// Held-out windows (samples) the per-head analysis averages over.
inline constexpr int kHeadWindows = 64;

// matrices[l][k][w]: head k of block l on window w. Returns metrics.json's "layers" array:
// [{"block": l, "heads": [{scores…, "kind", "mean_M"}]}].
nlohmann::json block_heads(const model::Model<float>& model,
                           const std::vector<std::vector<std::vector<Eigen::MatrixXd>>>& matrices,
                           const AnalysisConfig& thresholds, const std::filesystem::path& folder);

// "block 1: previous-token local; block 2: content (attention-like) none": each head's kind,
// from metrics.json's "layers", for the log.
std::string heads_text(const nlohmann::json& metrics);

// Appends each head's M for one window to `matrices` ([block][head][window]); `head_m[l][k]`
// points at head k of block l's n×n operator for that window.
void add_head_window(std::vector<std::vector<std::vector<Eigen::MatrixXd>>>& matrices,
                     const std::vector<std::vector<const float*>>& head_m, int n);

}  // namespace ufl::analysis
