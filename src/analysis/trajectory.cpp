#include "analysis/trajectory.hpp"

#include <algorithm>
#include <limits>
#include <utility>

#include "analysis/alignment.hpp"
#include "analysis/spectrum.hpp"
#include "analysis/structure_scores.hpp"

namespace ufl::analysis {

ScoreTrajectory::ScoreTrajectory(const data::Dataset& dataset, int samples)
    : n_(dataset.spec.n),
      half_width_(dataset.spec.kernel_width / 2),  // as the final analysis (measure.cpp)
      samples_(std::min(samples, dataset.test.count)) {
  const GramBasis targets =
      left_singular_basis(dataset.train.targets.data(), dataset.train.count, n_, dataset.spec.d);
  reference_basis_ = targets.left_vectors.leftCols(targets.k99);
}

std::vector<std::string> ScoreTrajectory::columns() const {
  return {"gamma", "iota", "tau", "ell", "phi", "alpha"};
}

void ScoreTrajectory::begin() { operators_ = OperatorStatistics(false); }

void ScoreTrajectory::observe(const model::SampleOutputs& outputs) {
  const float* M = outputs.blocks.front().parts.front().M;
  operators_.add(
      Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(M, n_,
                                                                                              n_)
          .cast<double>());
}

std::vector<double> ScoreTrajectory::finish(const model::Model<float>& model) {
  const std::optional<double> gate = model.part(0).mixer->gate(model.mixer_parameters(0));
  const Eigen::MatrixXd mean = operators_.mean();
  return {gate.value_or(std::numeric_limits<double>::quiet_NaN()),
          operators_.input_dependence(),
          toeplitz_score(mean),
          locality_score(mean, half_width_),
          fourier_score(mean),
          subspace_alignment(mean, reference_basis_)};
}

}  // namespace ufl::analysis
