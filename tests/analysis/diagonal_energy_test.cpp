// Where an operator's energy lies along its diagonals (spec section7.md §3): known matrices in,
// known profiles out.
#include "analysis/diagonal_energy.hpp"

#include <doctest/doctest.h>

#include <stdexcept>

using ufl::analysis::diagonal_profile;
using ufl::analysis::DiagonalProfile;

TEST_CASE("a shift by one position puts all energy on offset −1, in one diagonal") {
  const int n = 6;
  Eigen::MatrixXd shift = Eigen::MatrixXd::Zero(n, n);
  for (int i = 1; i < n; ++i) shift(i, i - 1) = 1.0;  // row i copies position i−1
  const DiagonalProfile profile = diagonal_profile(shift, 0.9);
  REQUIRE(profile.energy.size() == 2 * n - 1);
  CHECK(profile.energy[-1 + n - 1] == doctest::Approx(1.0));
  CHECK(profile.dominant_offset == -1);
  CHECK(profile.band_width == 1);
}

TEST_CASE("a scaled identity is one diagonal at offset 0") {
  const DiagonalProfile profile = diagonal_profile(0.3 * Eigen::MatrixXd::Identity(5, 5), 0.9);
  CHECK(profile.energy[4] == doctest::Approx(1.0));
  CHECK(profile.dominant_offset == 0);
  CHECK(profile.band_width == 1);
}

TEST_CASE("a three-tap band spreads its energy over three diagonals") {
  const int n = 8;
  Eigen::MatrixXd band = Eigen::MatrixXd::Zero(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = std::max(0, i - 1); j <= std::min(n - 1, i + 1); ++j) band(i, j) = i == j ? 2 : 1;
  const DiagonalProfile profile = diagonal_profile(band, 0.9);
  // energy: 8·4 on the diagonal, 7 on each neighbour, of 46.
  CHECK(profile.energy[n - 1] == doctest::Approx(32.0 / 46.0));
  CHECK(profile.energy[n - 2] == doctest::Approx(7.0 / 46.0));
  CHECK(profile.energy[n] == doctest::Approx(7.0 / 46.0));
  CHECK(profile.dominant_offset == 0);
  CHECK(profile.band_width == 3);  // the diagonal alone holds 70%, one neighbour more 85%
  CHECK(diagonal_profile(band, 0.6).band_width == 1);
  double total = 0;
  for (double share : profile.energy) total += share;
  CHECK(total == doctest::Approx(1.0));
}

TEST_CASE("ties go to the nearest offset, then the negative one; the zero matrix has no band") {
  Eigen::MatrixXd both = Eigen::MatrixXd::Zero(4, 4);
  both(1, 0) = both(0, 1) = both(3, 0) = 1.0;  // offsets −1, +1, −3
  CHECK(diagonal_profile(both, 0.9).dominant_offset == -1);
  const DiagonalProfile zero = diagonal_profile(Eigen::MatrixXd::Zero(3, 3), 0.9);
  CHECK(zero.band_width == 0);
  CHECK(zero.dominant_offset == 0);
  CHECK(zero.energy == std::vector<double>(5, 0.0));
  CHECK_THROWS_AS(diagonal_profile(Eigen::MatrixXd(0, 0), 0.9), std::invalid_argument);
  CHECK_THROWS_AS(diagonal_profile(Eigen::MatrixXd::Identity(2, 2), -0.1), std::invalid_argument);
  // share 0 (analysis.ell_min = 0): the band is the one strongest diagonal
  CHECK(diagonal_profile(Eigen::MatrixXd::Identity(2, 2), 0.0).band_width == 1);
}
