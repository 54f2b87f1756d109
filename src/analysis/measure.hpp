#pragma once
// Every measurement of docs/experiment.md §3 for a trained model, on the held-out test set, with
// the same measurements of the optimal estimator M* as the reference: for one layer at the top of
// metrics.json (the Section 8 names), for a stack per layer under "layers" (docs/section7.md §4),
// with the end-to-end η, η_fix and (for induction) the MSE per row role.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/analysis_config.hpp"
#include "analysis/named_array.hpp"
#include "data/dataset.hpp"
#include "model/model.hpp"

namespace ufl::analysis {

struct RunAnalysis {
  nlohmann::json metrics;  // docs/experiment.md §3 names; "optimal" holds M*'s measurements
  std::vector<NamedArray> arrays;  // U, V, M of the first test samples, M̄, SVDs, Ω, …
};

// Runs the model over dataset.test and measures what each of its layers became. Throws
// interrupt::Interrupted when a stop is requested meanwhile.
RunAnalysis analyze_model(const data::Dataset& dataset, model::Model<float>& model,
                          const AnalysisConfig& thresholds);

// "1 convolution (offset -1, gain 0.41), 2 attention (gain 0.83)": each layer's verdict, dominant
// diagonal and branch gain from a metrics.json, for the log.
std::string layer_verdicts_text(const nlohmann::json& metrics);

}  // namespace ufl::analysis
