#pragma once
// What each head of each block became (docs/transformer.md §5), for every task: from each head's
// M(X) on a fixed set of held-out windows, the scores of analysis/head_scores.hpp, and the head's
// mean M̄ written as heads/block<l>_head<k>.npy. A head is a part of a block measured as a head
// (model/block.hpp); head k of block l is its k-th such part, whatever its mixer.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "analysis/analysis_config.hpp"
#include "analysis/branch_shares.hpp"
#include "analysis/input_dependence.hpp"
#include "model/model.hpp"

namespace ufl::analysis {

// Held-out windows (samples) the per-head analysis averages over.
inline constexpr int kHeadWindows = 64;

// One head's M(X) over the windows seen so far: their statistics (ι, M̄) and their plain sum (the
// M̄ written to heads/), so that no window's matrix is kept once it has been added; for a head
// whose mixer blends a linear branch with the softmax by a learned gate, each branch's share
// (analysis/branch_shares.hpp).
struct HeadWindows {
  OperatorStatistics statistics;
  Eigen::MatrixXd sum;
  std::optional<BranchShares> branches;
};
using BlockHeadWindows = std::vector<std::vector<HeadWindows>>;  // [block][head]

// Returns metrics.json's "layers" array: [{"block": l, "heads": [{scores…, "mixer", "kind",
// "mean_M"}]}], each head with its own mixer's name, and for a gated head "branches" beside its
// "gamma".
nlohmann::json block_heads(const model::Model<float>& model, const BlockHeadWindows& windows,
                           const AnalysisConfig& thresholds, const std::filesystem::path& folder);

// "block 1: previous-token local; block 2: content (attention-like) none": each head's kind,
// from metrics.json's "layers", for the log; in a block whose heads differ in mixer each kind
// with its head's mixer, "local (convolution)".
std::string heads_text(const nlohmann::json& metrics);

// What one head computed for one window (views valid during the call): its M (n×n), and for a
// gated head recorded op by op its two branches before the gate (n×n) and its input x̂ (n×D),
// nullptr otherwise (model::MixerGraph::linear, softmax, input).
struct HeadWindow {
  const float* M = nullptr;
  const float* linear = nullptr;
  const float* softmax = nullptr;
  const float* input = nullptr;
};

// Adds each head's arrays for one window; `heads[l][k]` holds head k of block l's. Windows are
// added in order, so the results never depend on the threads. Branch shares are taken for the
// heads whose mixer has a learned gate and a softmax branch (model::Mixer), with their γ and W_v
// from `model`.
void add_head_window(BlockHeadWindows& windows, const model::Model<float>& model,
                     const std::vector<std::vector<HeadWindow>>& heads);

// `heads` of add_head_window for one window: head k of block l's, from `of(l, p)`, part p of
// block l's HeadWindow.
template <class Of>
std::vector<std::vector<HeadWindow>> head_windows_of(const model::Model<float>& model, Of of) {
  std::vector<std::vector<HeadWindow>> heads(model.blocks.size());
  for (int l = 0; l < model.depth(); ++l)
    for (int p : model::part_indices(model, l, model::Measured::kAsHead))
      heads[l].push_back(of(l, p));
  return heads;
}

}  // namespace ufl::analysis
