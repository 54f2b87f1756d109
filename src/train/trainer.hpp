#pragma once
// The training loop of spec §2: minibatches from the training set, the layer's loss on the
// tape, Adam with the cosine schedule, periodic test-set evaluation and progress.
#include <atomic>
#include <limits>
#include <stdexcept>
#include <vector>

#include "config/config.hpp"
#include "data/dataset.hpp"
#include "model/parameters.hpp"

namespace ufl::train {

struct LossPoint {
  int step;  // 1-based: the loss of the step's minibatch before its update
  double learning_rate, loss, mse, orthogonality;
  double test_mse = std::numeric_limits<double>::quiet_NaN();  // only at evaluation steps
};

struct TrainOptions {
  bool quiet = false;
  // Checked at every step boundary; when set, training stops early (SIGINT/SIGTERM).
  const std::atomic<bool>* stop_requested = nullptr;
};

struct TrainResult {
  std::vector<LossPoint> curve;
  int steps_done = 0;
  bool interrupted = false;
  double seconds = 0, steps_per_second = 0;
  double final_test_mse = 0;
};

// A NaN or Inf appeared; `what` names the step and the tensor.
struct DivergenceError : std::runtime_error {
  using std::runtime_error::runtime_error;
  int step = 0;
};

// Trains `params` (already initialised) on dataset.train; evaluates on dataset.test.
TrainResult train_layer(const config::Config& config, const data::Dataset& dataset,
                        model::Parameters<float>& params, const TrainOptions& options);

}  // namespace ufl::train
