#pragma once
// Each head's gate γ at every evaluation, for the heads whose mixer learns one (the universal
// layer; docs/transformer.md §5): the columns "block<l>/head<k>" of trajectory.csv, so that one
// can see whether γ moves towards softmax (1) where retrieval pays. A head is a part of a block
// measured as a head (model/block.hpp), each with its own mixer. It reads parameters only, so it
// never changes training results.
#include <string>
#include <vector>

#include "train/evaluation_probe.hpp"

namespace ufl::analysis {

class GateTrajectory : public train::EvaluationProbe {
 public:
  explicit GateTrajectory(const model::Model<float>& model);
  // True when one of the model's heads has a learned gate (there is something to record).
  static bool applies(const model::Model<float>& model);

  std::vector<std::string> columns() const override { return columns_; }
  int sample_count() const override { return 0; }
  void begin() override {}
  void observe(const model::SampleOutputs&) override {}
  std::vector<double> finish(const model::Model<float>& model) override;

 private:
  std::vector<std::string> columns_;
};

}  // namespace ufl::analysis
