#pragma once
// Spectra of operators (docs/experiment.md §3, "spectrum of M̄"): the classical SVD with its
// effective rank and k99, and the left singular basis of a very wide matrix (all training targets
// side by side) obtained from its Gram matrix without ever forming the wide matrix.
#include <Eigen/Dense>

namespace ufl::analysis {

// Singular vectors carry a sign convention so that runs and figures are comparable: in every left
// vector the entry of largest magnitude (the first, on ties) is positive; the matching right
// vector is flipped with it, so U diag(σ) Vᵀ is unchanged.
struct Spectrum {
  Eigen::VectorXd singular_values;  // descending, min(rows, cols) of them
  double effective_rank = 0.0;      // exp(H(σ/Σσ)); 0 for the zero matrix
  int k99 = 0;                      // fewest σ holding 99% of Σσ²; 0 for the zero matrix
  Eigen::MatrixXd left_vectors;     // U, rows×rows; column j belongs to singular_values(j)
  Eigen::MatrixXd right_vectors;    // V, cols×cols; column j belongs to singular_values(j)
};

// Full classical SVD (Eigen JacobiSVD, full U and V), sorted descending.
Spectrum spectrum_of(const Eigen::MatrixXd& M);

// Singular values only (descending), cheaper when the vectors are not needed.
Eigen::VectorXd singular_values_of(const Eigen::MatrixXd& M);

// Effective rank exp(H(p)), p = σ/Σσ, H(p) = −Σ p log p with 0·log 0 = 0 (Roy and Vetterli 2007).
// Between 1 and the number of nonzero σ; 0 when all σ are 0.
double effective_rank_of(const Eigen::VectorXd& singular_values);

// k99 (seed 001): the fewest leading σ (given descending) whose Σσ² reaches 99% of the total.
// A relative slack of 1e-12 keeps rounding from adding one more value when a prefix holds exactly
// 99% (e.g. the 100×100 identity gives 99). 0 when all σ are 0.
int k99_of(const Eigen::VectorXd& singular_values);
// The same for any share (k90: 0.9), with the same slack.
int rank_for_share(const Eigen::VectorXd& singular_values, double share);

// The left singular vectors and singular values of a wide matrix T = [C_1 C_2 … C_m].
struct GramBasis {
  Eigen::VectorXd singular_values;  // descending, n of them
  Eigen::MatrixXd left_vectors;     // n×n, column j belongs to singular_values(j), signs as above
  int k99 = 0;
};

// Streams the blocks C_s (n×d each) into the Gram matrix T Tᵀ = Σ_s C_s C_sᵀ, in double, in the
// order they are added. Eigenvalues λ of T Tᵀ give σ = sqrt(max(λ, 0)); its eigenvectors are the
// left singular vectors of T.
class GramAccumulator {
 public:
  explicit GramAccumulator(int n);
  // One block of n rows and d columns, float, row-major (a sample of data::SampleSet).
  void add(const float* block, int d);
  void add(const Eigen::MatrixXd& block);  // n×d
  const Eigen::MatrixXd& gram() const { return gram_; }
  GramBasis basis() const;

 private:
  Eigen::MatrixXd gram_;
};

// `count` blocks of n×d laid out one after another, each row-major (as data::SampleSet stores
// inputs and targets): the left singular basis of the n×(count·d) matrix placing them side by side.
GramBasis left_singular_basis(const float* samples, int count, int n, int d);

}  // namespace ufl::analysis
