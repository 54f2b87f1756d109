#pragma once
// The denoise task's measurements for a stack of blocks whose parts are not all measured as layers
// (model/block.hpp; transformer blocks: docs/transformer.md §1, §5): there is no single layer
// operator to score against the optimum, so the run is scored end to end (test MSE, η, η_fix, and
// the MSE per row role for induction) and each head is described by analysis/block_heads.hpp.
#include <filesystem>
#include <nlohmann/json.hpp>

#include "analysis/analysis_config.hpp"
#include "data/dataset.hpp"
#include "model/model.hpp"

namespace ufl::analysis {

// metrics.json for `model` on dataset.test; writes heads/*.npy into
// `folder`. Throws interrupt::Interrupted when a stop is requested meanwhile.
nlohmann::json analyze_blocks(const data::Dataset& dataset, model::Model<float>& model,
                              const AnalysisConfig& thresholds,
                              const std::filesystem::path& folder);

}  // namespace ufl::analysis
