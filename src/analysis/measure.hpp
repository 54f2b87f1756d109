#pragma once
// Every measurement of spec §4 for a trained layer, on the held-out test set, with the same
// measurements of the optimal estimator M* as the reference.
#include <nlohmann/json.hpp>
#include <vector>

#include "analysis/analysis_config.hpp"
#include "analysis/named_array.hpp"
#include "data/dataset.hpp"
#include "model/model.hpp"

namespace ufl::analysis {

struct RunAnalysis {
  nlohmann::json metrics;          // spec §3 names; "optimal" holds M*'s measurements
  std::vector<NamedArray> arrays;  // U, V, M of the first test samples, M̄, SVDs, Ω, …
};

// Runs the model over dataset.test and measures what its (first) layer became. Throws
// interrupt::Interrupted when a stop is requested meanwhile.
RunAnalysis analyze_model(const data::Dataset& dataset, model::Model<float>& model,
                          const AnalysisConfig& thresholds);

}  // namespace ufl::analysis
