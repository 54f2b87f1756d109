#pragma once
// Writes a run's files (spec §3) into a folder: the resolved config, the parameters, the loss
// curve, the analysis arrays and metrics, and the manifest. Every file is written atomically.
#include <filesystem>
#include <nlohmann/json.hpp>

#include "analysis/measure.hpp"
#include "model/parameters.hpp"
#include "train/trainer.hpp"

namespace ufl::results {

// params/A.npy, params/B.npy, params/s.npy, params/g.npy, params/W_v.npy (float32) and
// Sigma.npy (softplus(s)).
void write_parameters(const std::filesystem::path& folder, const model::Parameters<float>& params);
// Reads params/*.npy back; throws io::IoError if a file is missing, corrupt or the wrong shape.
void read_parameters(const std::filesystem::path& folder, model::Parameters<float>& params);

// loss.csv: step,lr,loss,mse,orthogonality,test_mse (test_mse empty between evaluations).
void write_loss_curve(const std::filesystem::path& folder,
                      const std::vector<train::LossPoint>& curve);

// metrics.json and one .npy per analysis array.
void write_analysis(const std::filesystem::path& folder, const analysis::RunAnalysis& analysis);

void write_json(const std::filesystem::path& path, const nlohmann::json& value);

}  // namespace ufl::results
