#pragma once
// The training loop of spec §2: minibatches from the training set, the layer's loss on the
// tape, Adam with the cosine schedule, periodic test-set evaluation and progress. It stops early,
// with a checkpoint state, at a step boundary when asked to (SIGINT/SIGTERM), and stops with a
// message naming the step and tensor when a NaN or Inf appears.
#include <atomic>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "data/dataset.hpp"
#include "model/model.hpp"
#include "train/checkpoint.hpp"
#include "train/loss_point.hpp"
#include "train/train_config.hpp"

namespace ufl::train {

struct TrainOptions {
  bool quiet = false;
  // Checked at every step boundary; when set, training stops and returns its state.
  const std::atomic<bool>* stop_requested = nullptr;
  // Continue from a checkpoint instead of the first step (params are taken from it).
  const TrainingState* resume_from = nullptr;
  // Called after every step (tests use it to interrupt at a chosen step).
  std::function<void(int step)> after_step;
};

enum class TrainStatus { kComplete, kInterrupted, kDiverged };

struct TrainResult {
  TrainStatus status = TrainStatus::kComplete;
  std::string message;  // what diverged, and where
  std::vector<LossPoint> curve;
  int steps_done = 0;
  double seconds = 0, steps_per_second = 0;  // seconds include those before a resume
  double final_test_mse = 0;
  std::vector<std::string>
      kernels;          // the kernel each layer trained with ("dense", "structured", …)
  TrainingState state;  // filled when interrupted: everything a resume needs
};

// Trains `model` (already initialised, or restored from options.resume_from) on dataset.train;
// evaluates on dataset.test. `seed` draws the minibatches.
TrainResult train_model(const TrainConfig& settings, std::uint64_t seed,
                        const data::Dataset& dataset, model::Model<float>& model,
                        const TrainOptions& options);

const char* status_name(TrainStatus status);

// Thrown by the CLI after recording a diverged run (exit code 3).
struct Diverged : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace ufl::train
