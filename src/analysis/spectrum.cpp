#include "analysis/spectrum.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>

namespace ufl::analysis {
namespace {

// Flips column j of `left` (and of `right`, if given) so that its largest-magnitude entry is
// positive; see the sign convention in spectrum.hpp.
void fix_signs(Eigen::MatrixXd& left, Eigen::MatrixXd* right) {
  for (Eigen::Index j = 0; j < left.cols(); ++j) {
    Eigen::Index largest = 0;
    left.col(j).cwiseAbs().maxCoeff(&largest);
    if (left(largest, j) < 0.0) {
      left.col(j) *= -1.0;
      if (right != nullptr && j < right->cols()) right->col(j) *= -1.0;
    }
  }
}

}  // namespace

Spectrum spectrum_of(const Eigen::MatrixXd& M) {
  Spectrum spectrum;
  // JacobiSVD, not BDCSVD: Eigen 3.4.0's BDCSVD fails an index assertion (a segfault in release
  // builds) in its deflation step on some of the layer's operators (seen at n = 64). JacobiSVD
  // sorts the singular values in decreasing order.
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd(M, Eigen::ComputeFullU | Eigen::ComputeFullV);
  spectrum.singular_values = svd.singularValues();
  spectrum.left_vectors = svd.matrixU();
  spectrum.right_vectors = svd.matrixV();
  fix_signs(spectrum.left_vectors, &spectrum.right_vectors);
  spectrum.effective_rank = effective_rank_of(spectrum.singular_values);
  spectrum.k99 = k99_of(spectrum.singular_values);
  return spectrum;
}

Eigen::VectorXd singular_values_of(const Eigen::MatrixXd& M) {
  // Values only, once per test sample for the spectral view: JacobiSVD (see spectrum_of) while it
  // is cheap; beyond n = 128 the square roots of the eigenvalues of MᵀM, which are accurate to
  // about 1e-8·σ_max, plenty for effective rank and k99.
  if (std::max(M.rows(), M.cols()) <= 128)
    return Eigen::JacobiSVD<Eigen::MatrixXd>(M).singularValues();
  const bool wide = M.cols() > M.rows();
  const Eigen::MatrixXd gram =
      wide ? Eigen::MatrixXd(M * M.transpose()) : Eigen::MatrixXd(M.transpose() * M);
  const Eigen::VectorXd eigenvalues =
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(gram, Eigen::EigenvaluesOnly).eigenvalues();
  Eigen::VectorXd values(eigenvalues.size());
  for (Eigen::Index j = 0; j < values.size(); ++j)
    values(j) = std::sqrt(std::max(eigenvalues(eigenvalues.size() - 1 - j), 0.0));  // descending
  return values;
}

double effective_rank_of(const Eigen::VectorXd& singular_values) {
  const double total = singular_values.sum();
  if (!(total > 0.0)) return 0.0;
  double entropy = 0.0;
  for (const double value : singular_values) {
    const double share = value / total;
    if (share > 0.0) entropy -= share * std::log(share);
  }
  return std::exp(entropy);
}

int rank_for_share(const Eigen::VectorXd& singular_values, double share) {
  const double total_energy = singular_values.squaredNorm();
  if (!(total_energy > 0.0)) return 0;
  const double target = (share - 1e-12) * total_energy;
  double held = 0.0;
  for (Eigen::Index j = 0; j < singular_values.size(); ++j) {
    held += singular_values(j) * singular_values(j);
    if (held >= target) return static_cast<int>(j + 1);
  }
  return static_cast<int>(singular_values.size());
}

int k99_of(const Eigen::VectorXd& singular_values) { return rank_for_share(singular_values, 0.99); }

GramAccumulator::GramAccumulator(int n) {
  if (n < 1) throw std::invalid_argument("GramAccumulator: n must be >= 1");
  gram_ = Eigen::MatrixXd::Zero(n, n);
}

void GramAccumulator::add(const float* block, int d) {
  using RowMajorFloat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const Eigen::Map<const RowMajorFloat> view(block, gram_.rows(), d);
  add(Eigen::MatrixXd(view.cast<double>()));
}

void GramAccumulator::add(const Eigen::MatrixXd& block) {
  if (block.rows() != gram_.rows()) {
    throw std::invalid_argument("GramAccumulator::add: block has the wrong number of rows");
  }
  gram_.noalias() += block * block.transpose();
}

GramBasis GramAccumulator::basis() const {
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(gram_);
  if (eigen.info() != Eigen::Success) {
    throw std::runtime_error("GramAccumulator::basis: eigen decomposition failed");
  }
  // The solver sorts eigenvalues ascending; singular values go descending.
  const Eigen::Index n = gram_.rows();
  GramBasis basis;
  basis.singular_values.resize(n);
  basis.left_vectors.resize(n, n);
  for (Eigen::Index j = 0; j < n; ++j) {
    const Eigen::Index source = n - 1 - j;
    basis.singular_values(j) = std::sqrt(std::max(eigen.eigenvalues()(source), 0.0));
    basis.left_vectors.col(j) = eigen.eigenvectors().col(source);
  }
  fix_signs(basis.left_vectors, nullptr);
  basis.k99 = k99_of(basis.singular_values);
  return basis;
}

GramBasis left_singular_basis(const float* samples, int count, int n, int d) {
  GramAccumulator accumulator(n);
  for (int s = 0; s < count; ++s) {
    accumulator.add(samples + static_cast<std::size_t>(s) * n * d, d);
  }
  return accumulator.basis();
}

}  // namespace ufl::analysis
