#pragma once
// What the trainer asks of a task (task/registry.hpp) while it trains: the training tape with the
// task's loss on it, minibatches loaded into that tape, and the held-out metric. The trainer owns
// the optimizer, the schedule, the sampler, checkpoints and progress; it never knows which loss
// is in use (docs/transformer.md §1).
#include <functional>
#include <string>
#include <vector>

#include "model/evaluate.hpp"
#include "tape/tape.hpp"

namespace ufl::train {

class Session {
 public:
  virtual ~Session() = default;
  // Training samples the minibatch sampler draws from.
  virtual int train_count() const = 0;
  // Puts training sample `index` into slot `slot` of the tape's minibatch.
  virtual void load_sample(int slot, int index) = 0;
  virtual Tape<float>& tape() = 0;
  virtual Var loss() const = 0;  // the scalar minimised
  // After forward(): the task's own part of the loss (loss.csv's task column) and the
  // orthogonality penalty (0 where there is none).
  virtual double task_loss() const = 0;
  virtual double penalty() const = 0;
  // The held-out metric (test MSE, validation loss) over the whole held-out set; `observe` sees
  // the outputs of the first `observed` samples of the same pass. A stop request leaves it
  // incomplete: the caller checks and discards it.
  virtual double evaluate(int observed,
                          const std::function<void(const model::SampleOutputs&)>& observe) = 0;
  // More held-out values from the last evaluate(), for loss.csv's columns after the task's own
  // (next_token on data whose positions carry two or more scored labels: the accuracy, and each
  // label's loss and accuracy; docs/transformer.md §13). Empty for most tasks and data.
  virtual std::vector<double> held_out_values() const { return {}; }
  // The kernel each layer trains with ("dense", "structured", "composite").
  virtual std::vector<std::string> kernels() const = 0;
};

}  // namespace ufl::train
