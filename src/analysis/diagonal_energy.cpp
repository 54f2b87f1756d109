#include "analysis/diagonal_energy.hpp"

#include <algorithm>
#include <functional>
#include <stdexcept>

namespace ufl::analysis {

DiagonalProfile diagonal_profile(const Eigen::MatrixXd& M, double share) {
  if (M.size() == 0) throw std::invalid_argument("diagonal_profile: empty matrix");
  // share = 0 is allowed (analysis.ell_min may be 0): the band is then the strongest diagonal.
  if (!(share >= 0.0 && share <= 1.0))
    throw std::invalid_argument("diagonal_profile: the share must lie in [0, 1]");
  const Eigen::Index rows = M.rows(), cols = M.cols();
  DiagonalProfile profile;
  profile.energy.assign(rows + cols - 1, 0.0);
  for (Eigen::Index i = 0; i < rows; ++i)
    for (Eigen::Index j = 0; j < cols; ++j) profile.energy[j - i + rows - 1] += M(i, j) * M(i, j);
  const double total = M.squaredNorm();
  if (total == 0.0) return profile;
  for (double& value : profile.energy) value /= total;

  // Offsets in the order 0, −1, 1, −2, 2, …: strictly greater wins, so ties go to the nearest.
  auto energy_at = [&](Eigen::Index k) { return profile.energy[k + rows - 1]; };
  Eigen::Index best = 0;
  for (Eigen::Index distance = 1; distance < std::max(rows, cols); ++distance)
    for (Eigen::Index k : {-distance, distance})
      if (k > -rows && k < cols && energy_at(k) > energy_at(best)) best = k;
  profile.dominant_offset = static_cast<int>(best);

  std::vector<double> sorted = profile.energy;
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  double held = 0.0;
  // A relative slack, so that rounding does not add a diagonal when the band holds exactly `share`.
  const double needed = share * (1.0 - 1e-12);
  for (double value : sorted) {
    held += value;
    ++profile.band_width;
    if (held >= needed) break;
  }
  return profile;
}

}  // namespace ufl::analysis
