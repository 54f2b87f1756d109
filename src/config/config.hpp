#pragma once
// A run's whole configuration (docs/design.md §3): the settings of each part, owned by that part,
// put together. The key table (config/keys.hpp) maps every JSON key to one field here.
#include <cstdint>
#include <string>

#include "analysis/analysis_config.hpp"
#include "data/dataset_config.hpp"
#include "model/model_config.hpp"
#include "task/task_config.hpp"
#include "train/train_config.hpp"

namespace ufl::config {

struct Config {
  std::string name = "run";
  std::uint64_t seed = 1;  // initialisation and minibatches
  // The data's seed (key dataset.seed): `seed` unless given, or the --data folder's
  // (docs/seeds.md).
  std::uint64_t dataset_seed = 1;
  task::TaskConfig task;
  data::DatasetConfig dataset;
  model::LayerConfig layer;
  model::ModelConfig model;
  train::TrainConfig train;
  analysis::AnalysisConfig analysis;
};

}  // namespace ufl::config
