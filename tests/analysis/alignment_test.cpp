// SVD alignment (spec §4): principal angles between subspaces, per-component cosines and
// singular value errors after the W_v scale.
#include "analysis/alignment.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>

using ufl::analysis::component_cosines;
using ufl::analysis::singular_value_errors;
using ufl::analysis::subspace_alignment;

namespace {

Eigen::VectorXd unit(int n, int i) { return Eigen::VectorXd::Unit(n, i); }

}  // namespace

TEST_CASE("subspace_alignment: 1 on the reference subspace, 0 orthogonal to it, 1/2 at 45°") {
  // Top-2 left singular subspace of diag(5, 4, 1, 0.5) is span(e0, e1).
  const Eigen::MatrixXd M = Eigen::Vector4d(5.0, 4.0, 1.0, 0.5).asDiagonal();
  Eigen::MatrixXd same(4, 2), orthogonal(4, 2), rotated(4, 2);
  // A rotated basis of the same plane still scores 1: only the subspace matters.
  same << std::sqrt(0.5), std::sqrt(0.5), std::sqrt(0.5), -std::sqrt(0.5), 0, 0, 0, 0;
  orthogonal << unit(4, 2), unit(4, 3);
  // Each reference vector at 45° to the top subspace: cos² = 1/2 for both principal angles.
  rotated << (unit(4, 0) + unit(4, 2)) / std::sqrt(2.0), (unit(4, 1) + unit(4, 3)) / std::sqrt(2.0);
  CHECK(subspace_alignment(M, same) == doctest::Approx(1.0).epsilon(1e-13));
  CHECK(subspace_alignment(M, orthogonal) == doctest::Approx(0.0).epsilon(1e-13));
  CHECK(subspace_alignment(M, rotated) == doctest::Approx(0.5).epsilon(1e-13));
  // k = 1 at 45°.
  const Eigen::MatrixXd diagonal_vector = (unit(4, 0) + unit(4, 1)) / std::sqrt(2.0);
  CHECK(subspace_alignment(M, diagonal_vector) == doctest::Approx(0.5).epsilon(1e-13));
  CHECK(subspace_alignment(M, Eigen::MatrixXd(4, 0)) == 0.0);
  CHECK_THROWS_AS(subspace_alignment(M, Eigen::MatrixXd::Zero(3, 1)), std::invalid_argument);
}

TEST_CASE("component_cosines: |⟨u_j, u_j*⟩| in singular value order") {
  // Reference: σ = 3, 2, 1 on e0, e1, e2. Learned: the same basis with e1 and e2 mixed by 60°, and
  // the top vector's sign flipped (signs do not matter).
  const Eigen::MatrixXd reference = Eigen::Vector3d(3.0, 2.0, 1.0).asDiagonal();
  const double angle = std::acos(0.5);
  Eigen::Matrix3d basis;
  basis.col(0) = -unit(3, 0);
  basis.col(1) = std::cos(angle) * unit(3, 1) + std::sin(angle) * unit(3, 2);
  basis.col(2) = -std::sin(angle) * unit(3, 1) + std::cos(angle) * unit(3, 2);
  const Eigen::MatrixXd learned =
      basis * Eigen::Vector3d(6.0, 4.0, 2.0).asDiagonal() * basis.transpose();
  const Eigen::VectorXd cosines = component_cosines(learned, reference, 3);
  CHECK(cosines(0) == doctest::Approx(1.0).epsilon(1e-13));
  CHECK(cosines(1) == doctest::Approx(0.5).epsilon(1e-13));
  CHECK(cosines(2) == doctest::Approx(0.5).epsilon(1e-13));
  CHECK_THROWS_AS(component_cosines(learned, reference, 4), std::invalid_argument);
}

TEST_CASE("singular_value_errors: relative error of |w|·σ_j(M) against σ_j(M*)") {
  const Eigen::MatrixXd reference = Eigen::Vector3d(3.0, 2.0, 1.0).asDiagonal();
  const Eigen::MatrixXd half = 0.5 * reference;
  // W_v = 2·I makes M = M*/2 exact.
  CHECK(singular_value_errors(half, 2.0, reference, 3).norm() < 1e-14);
  // σ(w·M) = |w|·σ(M): a negative scale is as good.
  CHECK(singular_value_errors(half, -2.0, reference, 3).norm() < 1e-14);
  const Eigen::VectorXd unscaled = singular_value_errors(half, 1.0, reference, 2);
  REQUIRE(unscaled.size() == 2);
  CHECK(unscaled(0) == doctest::Approx(0.5).epsilon(1e-14));
  CHECK(unscaled(1) == doctest::Approx(0.5).epsilon(1e-14));
  // A zero reference value: 0 if matched, infinite otherwise.
  const Eigen::MatrixXd rank_two = Eigen::Vector3d(3.0, 2.0, 0.0).asDiagonal();
  CHECK(singular_value_errors(rank_two, 1.0, rank_two, 3)(2) == 0.0);
  CHECK(std::isinf(singular_value_errors(reference, 1.0, rank_two, 3)(2)));
}
