#pragma once
// What each head of each block became (docs/transformer.md §5), for every task: from each head's
// M(X) on a fixed set of held-out windows, the scores of analysis/head_scores.hpp, and the head's
// mean M̄ written as heads/block<l>_head<k>.npy. A head is a part of a block measured as a head
// (model/block.hpp); head k of block l is its k-th such part, whatever its mixer.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <vector>

#include "analysis/analysis_config.hpp"
#include "analysis/input_dependence.hpp"
#include "model/model.hpp"

namespace ufl::analysis {

// Held-out windows (samples) the per-head analysis averages over.
inline constexpr int kHeadWindows = 64;

// One head's M(X) over the windows seen so far: their statistics (ι, M̄) and their plain sum (the
// M̄ written to heads/), so that no window's matrix is kept once it has been added.
struct HeadWindows {
  OperatorStatistics statistics;
  Eigen::MatrixXd sum;
};
using BlockHeadWindows = std::vector<std::vector<HeadWindows>>;  // [block][head]

// Returns metrics.json's "layers" array: [{"block": l, "heads": [{scores…, "mixer", "kind",
// "mean_M"}]}], each head with its own mixer's name.
nlohmann::json block_heads(const model::Model<float>& model, const BlockHeadWindows& windows,
                           const AnalysisConfig& thresholds, const std::filesystem::path& folder);

// "block 1: previous-token local; block 2: content (attention-like) none": each head's kind,
// from metrics.json's "layers", for the log; in a block whose heads differ in mixer each kind
// with its head's mixer, "local (convolution)".
std::string heads_text(const nlohmann::json& metrics);

// Adds each head's M for one window; `head_m[l][k]` points at head k of block l's n×n operator
// for that window. Windows are added in order, so the results never depend on the threads.
void add_head_window(BlockHeadWindows& windows,
                     const std::vector<std::vector<const float*>>& head_m, int n);

// head_m of add_head_window for one window: head k of block l's M, from `m_of(l, p)`, part p of
// block l's M.
template <class MOf>
std::vector<std::vector<const float*>> head_operators(const model::Model<float>& model, MOf m_of) {
  std::vector<std::vector<const float*>> head_m(model.blocks.size());
  for (int l = 0; l < model.depth(); ++l)
    for (int p : model::part_indices(model, l, model::Measured::kAsHead))
      head_m[l].push_back(m_of(l, p));
  return head_m;
}

}  // namespace ufl::analysis
