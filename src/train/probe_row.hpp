#pragma once
#include <vector>

namespace ufl::train {

// One evaluation's measurements by an evaluation probe (train/evaluation_probe.hpp): the step
// and one value per column of the probe (one row of trajectory.csv).
struct ProbeRow {
  int step = 0;
  std::vector<double> values;
};

}  // namespace ufl::train
