#pragma once
#include <limits>

namespace ufl::train {

// One row of loss.csv.
struct LossPoint {
  int step;  // 1-based: the loss of the step's minibatch before its update
  double learning_rate, loss, mse, orthogonality;
  double test_mse = std::numeric_limits<double>::quiet_NaN();  // only at evaluation steps
};

}  // namespace ufl::train
