#pragma once
// Every measurement of spec §4 for a trained layer, on the held-out test set, with the same
// measurements of the optimal estimator M* as the reference.
#include <nlohmann/json.hpp>
#include <vector>

#include "analysis/analysis_config.hpp"
#include "analysis/named_array.hpp"
#include "data/dataset.hpp"
#include "model/parameters.hpp"

namespace ufl::analysis {

struct RunAnalysis {
  nlohmann::json metrics;          // spec §3 names; "optimal" holds M*'s measurements
  std::vector<NamedArray> arrays;  // U, V, M of the first test samples, M̄, SVDs, Ω, …
};

// Runs the layer over dataset.test and measures what emerged.
RunAnalysis analyze_layer(const data::Dataset& dataset, model::Parameters<float>& params,
                          const AnalysisConfig& thresholds);

}  // namespace ufl::analysis
