#pragma once
// Measurements the trainer takes at every test-set evaluation besides the test MSE, from the
// same forward pass (the score trajectory of analysis/trajectory.hpp: γ and the structure scores
// of M̄ while training runs). A probe only reads the model's outputs and parameters, so it never
// changes training results. Its rows are part of a checkpoint, so a resumed run's rows are those
// of a run never interrupted.
#include <string>
#include <vector>

#include "model/evaluate.hpp"
#include "model/model.hpp"
#include "train/probe_row.hpp"

namespace ufl::train {

class EvaluationProbe {
 public:
  virtual ~EvaluationProbe() = default;
  // The names of the values of a row (the header of trajectory.csv after "step").
  virtual std::vector<std::string> columns() const = 0;
  // The probe sees the outputs of the first sample_count() test samples.
  virtual int sample_count() const = 0;
  // One evaluation: begin(), observe() for each of those samples in order, then finish().
  virtual void begin() = 0;
  virtual void observe(const model::SampleOutputs& outputs) = 0;
  virtual std::vector<double> finish(const model::Model<float>& model) = 0;
};

}  // namespace ufl::train
