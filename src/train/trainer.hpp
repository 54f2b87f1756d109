#pragma once
// The training loop of docs/experiment.md §2: minibatches from the training set, the layer's loss
// on the tape, Adam with the cosine schedule, periodic test-set evaluation (with an optional probe
// of more measurements) and progress. When asked to stop (SIGINT/SIGTERM) it abandons the step or
// evaluation under way and returns the state of the last step boundary; it hands out that state
// every train.checkpoint_every steps (or about once a minute) for checkpoints; it stops with a
// message naming the step and tensor when a NaN or Inf appears.
#include <atomic>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/model.hpp"
#include "train/adam.hpp"
#include "train/checkpoint.hpp"
#include "train/evaluation_probe.hpp"
#include "train/loss_point.hpp"
#include "train/session.hpp"
#include "train/train_config.hpp"

namespace ufl::train {

struct TrainOptions {
  bool quiet = false;
  // Checked at every step boundary and between the parts of a step; when set, training
  // abandons the step (or the evaluation) under way and returns the last step boundary's state.
  // The kernels inside a step stop early on interrupt::stop_requested() (the CLI points this at
  // the same flag).
  const std::atomic<bool>* stop_requested = nullptr;
  // Continue from a checkpoint instead of the first step (params are taken from it).
  const TrainingState* resume_from = nullptr;
  // Called after every step (tests use it to interrupt at a chosen step).
  std::function<void(int step)> after_step;
  // Receives the state at a step boundary every settings.checkpoint_every steps, or with 0
  // about every checkpoint_seconds of training (never after the last step: the result has it).
  std::function<void(const TrainingState&)> on_checkpoint;
  double checkpoint_seconds = 60;
  // More measurements at every evaluation (analysis/trajectory.hpp); may be null.
  EvaluationProbe* probe = nullptr;
  // The held-out metric's name in the progress line (task/registry.hpp).
  std::string metric_name = "test_mse";
  // The cost model's time per step (train/resource_estimate.hpp) and the kernel rate it assumed
  // per thread: when the first steps take kSlowerThanEstimate times longer, the run says so
  // (0: no estimate).
  double estimated_seconds_per_step = 0, estimated_gflops_per_thread = 0;
};

// How many times slower than the estimate the first steps must be before the run warns: the cost
// model is within a factor of 2 either way on the machines of bench/README.md.
inline constexpr double kSlowerThanEstimate = 4;

enum class TrainStatus { kComplete, kInterrupted, kDiverged };

struct TrainResult {
  TrainStatus status = TrainStatus::kComplete;
  std::string message;  // what diverged, and where
  std::vector<LossPoint> curve;
  int steps_done = 0;
  double seconds = 0, steps_per_second = 0;  // seconds include those before a resume
  double final_test_metric = 0;              // complete runs
  std::vector<std::string> kernels;  // the kernel each layer trained with ("dense", "structured")
  std::vector<ProbeRow> probe_rows;
  double probe_seconds = 0;  // of `seconds`, the probe's share
  // The state at the last step boundary, everything a resume needs (complete and interrupted
  // runs; a complete run's state resumes to nothing more than its analysis).
  TrainingState state;
};

// Trains `model` (already initialised, or restored from options.resume_from) on the task's
// training set through `session`, which holds the loss and the held-out metric. `seed` draws
// the minibatches.
TrainResult train_session(const TrainConfig& settings, std::uint64_t seed, Session& session,
                          model::Model<float>& model, const TrainOptions& options);

// The optimiser the loop steps (docs/transformer.md §3): Adam with the config's β₂, and AdamW's
// decoupled weight decay on matrices only (parameters with more than one row and column), not on
// norms, biases, Σ or gates.
Adam optimizer_for(const TrainConfig& settings, const model::Parameters<float>& params);

const char* status_name(TrainStatus status);

// Thrown by the CLI after recording a diverged run (exit code 3).
struct Diverged : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace ufl::train
