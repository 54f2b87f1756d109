#include "analysis/operator_scores.hpp"

#include <algorithm>
#include <utility>

#include "analysis/alignment.hpp"
#include "analysis/structure_scores.hpp"

namespace ufl::analysis {

Eigen::MatrixXd to_matrix(const float* values, int rows, int cols) {
  return Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
             values, rows, cols)
      .cast<double>();
}

std::vector<double> to_list(const Eigen::VectorXd& vector) {
  return std::vector<double>(vector.data(), vector.data() + vector.size());
}

OperatorScores score_operator(const Eigen::MatrixXd& mean, double iota, int half_width,
                              const Eigen::MatrixXd& reference_basis) {
  OperatorScores scores;
  scores.iota = iota;
  scores.tau = toeplitz_score(mean);
  scores.ell = locality_score(mean, half_width);
  scores.phi = fourier_score(mean);
  scores.alpha = subspace_alignment(mean, reference_basis);
  scores.spectrum = spectrum_of(mean);
  return scores;
}

nlohmann::json scores_json(const OperatorScores& scores) {
  return {
      {"iota", scores.iota},        {"tau", scores.tau},
      {"ell", scores.ell},          {"phi", scores.phi},
      {"alpha", scores.alpha},      {"effective_rank", scores.spectrum.effective_rank},
      {"k99", scores.spectrum.k99}, {"singular_values", to_list(scores.spectrum.singular_values)}};
}

void add_svd_arrays(std::vector<NamedArray>& arrays, const std::string& name,
                    const Spectrum& spectrum) {
  arrays.push_back(named_vector(name + "_singular_values", spectrum.singular_values));
  arrays.push_back(named_matrix(name + "_U", spectrum.left_vectors));
  arrays.push_back(named_matrix(name + "_V", spectrum.right_vectors));
}

NamedArray samples_array(std::string name, const std::vector<float>& values, std::size_t count,
                         std::size_t rows, std::size_t cols) {
  return NamedArray{
      std::move(name), {count, rows, cols}, std::vector<double>(values.begin(), values.end())};
}

nlohmann::json bilinear_view(const model::Factors& factors, int width, int n,
                             const std::string& prefix, std::vector<NamedArray>& arrays) {
  const Eigen::MatrixXd omega = factors.A * factors.sigma.asDiagonal() * factors.B.transpose();
  const Spectrum omega_spectrum = spectrum_of(omega);
  const Spectrum content_spectrum = spectrum_of(omega.topLeftCorner(width, width));
  const Spectrum position_spectrum = spectrum_of(omega.block(width, width, n, n));
  arrays.push_back(named_matrix(prefix + "Omega", omega));
  add_svd_arrays(arrays, prefix + "Omega", omega_spectrum);
  add_svd_arrays(arrays, prefix + "Omega_content", content_spectrum);
  add_svd_arrays(arrays, prefix + "Omega_position", position_spectrum);
  const double omega_energy = std::max(omega.squaredNorm(), 1e-300);
  return {{"effective_rank", omega_spectrum.effective_rank},
          {"content_energy_share", omega.topLeftCorner(width, width).squaredNorm() / omega_energy},
          {"position_energy_share", omega.block(width, width, n, n).squaredNorm() / omega_energy},
          {"content_effective_rank", content_spectrum.effective_rank},
          {"position_effective_rank", position_spectrum.effective_rank}};
}

}  // namespace ufl::analysis
