#pragma once
// Writes a run's files (docs/design.md §3) into a folder: the resolved config, the parameters, the
// loss curve, the analysis arrays and metrics, and the manifest. Every file is written atomically.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/measure.hpp"
#include "model/model.hpp"
#include "train/trainer.hpp"

namespace ufl::results {

// params/<slice>.npy for every parameter (float32: A, B, s, g, W_v for one universal layer;
// params/layer2/A.npy … in a deeper stack) and the arrays each layer's mixer derives from them
// (Sigma.npy = softplus(s), or layer2/Sigma.npy).
void write_parameters(const std::filesystem::path& folder, const model::Model<float>& model);
// Reads params/*.npy back; throws io::IoError if a file is missing, corrupt or the wrong shape.
void read_parameters(const std::filesystem::path& folder, model::Parameters<float>& params);

// loss.csv: step,lr,loss,<task loss>,orthogonality,<held-out metric> (denoise: mse and test_mse;
// the metric empty between evaluations), for tasks in nats the two losses in bits, then the more
// held-out values of each evaluation (LossPoint::held_out), empty between evaluations.
// The task's columns, from its record (task/registry.hpp).
struct LossColumns {
  std::string task_loss;                   // its own loss on the training minibatch
  std::string metric;                      // its held-out metric
  bool bits = false;                       // losses in nats: both again in bits
  std::vector<std::string> held_out = {};  // the names of LossPoint::held_out's values
};
void write_loss_curve(const std::filesystem::path& folder,
                      const std::vector<train::LossPoint>& curve, const LossColumns& task);

// trajectory.csv: step and the probe's columns (train/evaluation_probe.hpp), one row per
// evaluation; NaN values are written empty.
void write_trajectory(const std::filesystem::path& folder, const std::vector<std::string>& columns,
                      const std::vector<train::ProbeRow>& rows);

// <name>.npy of one analysis array (int32 or the array's float type).
void write_array(const std::filesystem::path& folder, const analysis::NamedArray& array);

// metrics.json and one .npy per analysis array.
void write_analysis(const std::filesystem::path& folder, const analysis::RunAnalysis& analysis);

void write_json(const std::filesystem::path& path, const nlohmann::json& value);

}  // namespace ufl::results
