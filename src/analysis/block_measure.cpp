#include "analysis/block_measure.hpp"

#include "analysis/block_heads.hpp"
#include "analysis/row_errors.hpp"
#include "data/registry.hpp"
#include "io/stop_request.hpp"
#include "model/evaluate.hpp"

namespace ufl::analysis {
namespace {

nlohmann::json role_json(const RoleErrorTally& tally) {
  nlohmann::json roles = nlohmann::json::object();
  for (const auto& [role, mse] : tally.mse()) roles[role] = mse;
  return roles;
}

Eigen::MatrixXd to_matrix(const float* values, int rows, int cols) {
  Eigen::MatrixXd matrix(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int c = 0; c < cols; ++c) matrix(i, c) = values[std::size_t(i) * cols + c];
  return matrix;
}

}  // namespace

nlohmann::json analyze_blocks(const data::Dataset& dataset, model::Model<float>& model,
                              const AnalysisConfig& thresholds,
                              const std::filesystem::path& folder) {
  const data::SampleSet& test = dataset.test;
  const int n = test.n, d = test.d;
  const std::size_t sample_size = std::size_t(n) * d;
  const bool roles = static_cast<bool>(dataset.kind->row_roles);
  const std::vector<std::string> row_roles =
      roles ? dataset.kind->row_roles(dataset.spec) : std::vector<std::string>{};
  RoleErrorTally model_roles(row_roles), optimal_roles(row_roles), fixed_roles(row_roles);
  BlockHeadWindows head_windows;
  double squared_error = 0;
  model::Evaluator evaluator(model, test.count);
  evaluator.for_each_sample(test, [&](const model::SampleOutputs& outputs) {
    const float* target = test.target(outputs.index);
    for (std::size_t e = 0; e < sample_size; ++e) {
      const double error = double(outputs.Y[e]) - double(target[e]);
      squared_error += error * error;
    }
    if (roles) model_roles.add(to_matrix(outputs.Y, n, d), target);
    if (outputs.index < kHeadWindows)
      add_head_window(head_windows, model, head_windows_of(model, [&](int l, int p) {
                        const model::PartOutputs& part = outputs.blocks[l].parts[p];
                        return HeadWindow{part.M, part.linear, part.softmax, part.input};
                      }));
  });
  interrupt::throw_if_stop_requested("analysis");
  const double test_mse = squared_error / (double(test.count) * sample_size);
  const double optimal_mse = data::optimal_mse(dataset, test);
  const double fixed_mse = data::fixed_mse(dataset, test);

  nlohmann::json metrics;
  metrics["task"] = "denoise";
  metrics["dataset"] = dataset.spec.kind;
  metrics["mixer"] = model::mixers_text(model.layer_config);
  metrics["block"] = model.config.block;
  metrics["depth"] = model.depth();
  metrics["width"] = model.width;
  metrics["heads"] = model.layer_config.heads;
  metrics["parameters"] = model.params.values.size();
  metrics["test_mse"] = test_mse;
  metrics["optimal_mse"] = optimal_mse;
  metrics["fixed_mse"] = fixed_mse;
  metrics["eta"] = optimal_mse / test_mse;
  metrics["eta_fix"] = fixed_mse / test_mse;
  metrics["claimed"] = dataset.kind->claimed_operator;
  if (roles) {
    for (int s = 0; s < test.count; ++s) {
      optimal_roles.add(data::optimal_estimate(dataset, test, s), test.target(s));
      fixed_roles.add(dataset.fixed_operator * to_matrix(test.input(s), n, d), test.target(s));
    }
    metrics["row_mse"] = role_json(model_roles);
    metrics["optimal_row_mse"] = role_json(optimal_roles);
    metrics["fixed_row_mse"] = role_json(fixed_roles);
  }
  metrics["layers"] = block_heads(model, head_windows, thresholds, folder);
  return metrics;
}

}  // namespace ufl::analysis
