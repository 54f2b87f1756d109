#pragma once
// A run's dataset settings (the keys dataset.*). Their defaults are the spec's; their rules and
// meanings are in the key table, config/keys.cpp.
#include <string>
#include <vector>

namespace ufl::data {

struct DatasetConfig {
  std::string kind = "local";  // a registered dataset kind (data/registry.hpp)
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

}  // namespace ufl::data
