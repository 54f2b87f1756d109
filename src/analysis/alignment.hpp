#pragma once
// SVD alignment (docs/experiment.md §3): how well the singular structure of the learned operator M̄
// matches a reference, as a subspace (α), per component (|⟨u_j, u_j*⟩|) and per singular value.
#include <Eigen/Dense>

namespace ufl::analysis {

// α = mean squared cosine of the principal angles between the top-k left singular subspace of M
// and span(reference_basis) = ‖U_kᵀ Q‖²_F / k, Q = reference_basis (rows(M)×k, orthonormal
// columns, e.g. the leading k99 columns of GramBasis::left_vectors of the training targets).
// 1 when the subspaces coincide, 0 when orthogonal; 0 for an empty reference (k = 0).
// Throws std::invalid_argument if the row counts differ or k > rows(M).
double subspace_alignment(const Eigen::MatrixXd& M, const Eigen::MatrixXd& reference_basis);

// |⟨u_j(M), u_j(reference)⟩| for j < k, the left singular vectors of both sorted by singular
// value (docs/experiment.md §3, "per component, against M*"). Throws std::invalid_argument if the
// row counts differ or k exceeds either matrix's number of singular values.
Eigen::VectorXd component_cosines(const Eigen::MatrixXd& M, const Eigen::MatrixXd& reference,
                                  int k);

// |scale|·σ_j(M) against σ_j(reference): |(|scale|·σ_j(M)) − σ_j(ref)| / σ_j(ref), j < k. The
// scale is w = trace(W_v)/d of docs/experiment.md §3 (Y = M X W_v can trade scale between M and
// W_v); its absolute value is used because σ(w·M) = |w|·σ(M). Where σ_j(ref) = 0 the error is 0 if
// the scaled σ_j(M) is 0 too and +infinity otherwise. Throws like component_cosines.
Eigen::VectorXd singular_value_errors(const Eigen::MatrixXd& M, double scale,
                                      const Eigen::MatrixXd& reference, int k);

}  // namespace ufl::analysis
