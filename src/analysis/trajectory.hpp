#pragma once
// The score trajectory: at every test evaluation during training, γ and the structure scores of
// docs/experiment.md §3 (ι, τ, ℓ, φ, α) of the first layer's M̄ over a fixed subset of the test set
// (its first samples), so that emergence can be watched while it happens (trajectory.csv, figure
// 3). It is an evaluation probe of the trainer: it reads the outputs of the evaluation pass the
// trainer runs anyway and the parameters, and changes nothing. ι is over the subset, so it is close
// to, but not, metrics.json's ι over the whole test set; τ, ℓ, φ, α are the final analysis's
// functions applied to the subset's M̄.
#include <Eigen/Dense>

#include "analysis/input_dependence.hpp"
#include "data/dataset.hpp"
#include "train/evaluation_probe.hpp"

namespace ufl::analysis {

// Test samples the trajectory averages over: enough for ι and M̄ to settle (at most the test set).
inline constexpr int kTrajectorySamples = 256;

class ScoreTrajectory : public train::EvaluationProbe {
 public:
  // Computes the α reference (the training targets' top-k99 left basis) once.
  explicit ScoreTrajectory(const data::Dataset& dataset, int samples = kTrajectorySamples);

  // gamma, iota, tau, ell, phi, alpha (γ is NaN for a mixer without a gate).
  std::vector<std::string> columns() const override;
  int sample_count() const override { return samples_; }
  void begin() override;
  void observe(const model::SampleOutputs& outputs) override;
  std::vector<double> finish(const model::Model<float>& model) override;

 private:
  int n_, half_width_, samples_;
  Eigen::MatrixXd reference_basis_;
  OperatorStatistics operators_;
};

}  // namespace ufl::analysis
