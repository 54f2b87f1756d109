#pragma once
// Where an operator's energy lies along its diagonals (docs/section7.md §4): the share of ‖M‖²_F
// on each offset k = j − i, the offset holding the most, and how many diagonals it takes to hold
// most of it. A shift by one position ("copy the previous row", M_{i,i−1} = 1) puts everything on
// k = −1; a scaled identity everything on k = 0; a convolution spreads over a band of offsets.
#include <Eigen/Dense>
#include <vector>

namespace ufl::analysis {

struct DiagonalProfile {
  // energy[k + rows − 1] = Σ_{j−i=k} M_ij² / ‖M‖²_F for k = −(rows−1) … cols−1 (all 0 for M = 0).
  std::vector<double> energy;
  int dominant_offset = 0;  // the offset with the most energy; on ties the smallest |k|, then k < 0
  int band_width = 0;  // the fewest diagonals that together hold `share` of ‖M‖²_F (0 if M = 0)
};

// Throws std::invalid_argument for an empty M or a share outside (0, 1].
DiagonalProfile diagonal_profile(const Eigen::MatrixXd& M, double share);

}  // namespace ufl::analysis
