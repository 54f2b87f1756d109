#pragma once
// The experiment configuration of spec section 3: plain structs with the spec's defaults.
// Parsing, --set overrides and validation live in config/load.hpp.
#include <cstdint>
#include <string>
#include <vector>

namespace ufl::config {

struct DatasetConfig {
  std::string kind = "local";  // local | global | periodic | lowrank
  int n = 32;                  // positions
  int d = 16;                  // channels
  double noise = 0.5;          // σ of the additive Gaussian noise
  int train_size = 4096;
  int test_size = 1024;
  // local only
  int kernel_width = 5;
  // periodic only
  std::vector<int> freqs = {2, 5, 9};
  double amplitude_decay = 0.5;
  // lowrank only
  int rank = 4;
  double singular_value_decay = 0.7;
};

struct LayerConfig {
  int rank = 32;  // r; the config loader fills in n when the config omits it
  double content_init_scale = 1.0;
};

struct TrainConfig {
  int steps = 6000;
  int batch_size = 64;
  double lr = 1e-2;
  double lr_final = 1e-4;
  double ortho_weight = 0.01;
  int eval_every = 200;  // steps between test-set evaluations in loss.csv
};

struct AnalysisConfig {
  double iota_min = 0.2;
  double tau_min = 0.9;
  double ell_min = 0.9;
  double phi_min = 0.9;
  double alpha_min = 0.9;
  double eta_min = 0.9;
};

struct Config {
  std::string name = "run";
  std::uint64_t seed = 1;
  DatasetConfig dataset;
  LayerConfig layer;
  TrainConfig train;
  AnalysisConfig analysis;
};

}  // namespace ufl::config
