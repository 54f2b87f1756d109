#pragma once
#include <limits>
#include <vector>

namespace ufl::train {

// One row of loss.csv.
struct LossPoint {
  int step;  // 1-based: the loss of the step's minibatch before its update
  // loss = task_loss + λ_orth·orthogonality; task_loss is the task's own (denoise: the MSE,
  // next_token: the cross-entropy in nats), test_metric its held-out value (task/registry.hpp).
  double learning_rate, loss, task_loss, orthogonality;
  double test_metric = std::numeric_limits<double>::quiet_NaN();  // only at evaluation steps
  // More held-out values at evaluation steps (train::Session::held_out_values); else empty.
  std::vector<double> held_out = {};
};

}  // namespace ufl::train
