#pragma once
// Routing accuracy of spec §4 (global dataset): does each token attend most to its partner?
#include <Eigen/Dense>
#include <cstdint>

namespace ufl::analysis {

// The number of positions i whose largest off-diagonal entry M_s(i, j), j ≠ i, sits at
// j = partners[i] (on ties the first such j wins). M_s is n×n; partners holds n positions.
// Throws std::invalid_argument for a non-square M_s.
int routed_positions(const Eigen::MatrixXd& operator_of_sample, const std::int32_t* partners);

// routed_positions / n; 0 for n < 2 (no off-diagonal entry to route to).
double routing_accuracy(const Eigen::MatrixXd& operator_of_sample, const std::int32_t* partners);

// Routing accuracy over many samples: routed positions over all positions seen.
class RoutingTally {
 public:
  void add(const Eigen::MatrixXd& operator_of_sample, const std::int32_t* partners);
  double accuracy() const;  // 0 before any position was seen

 private:
  long long routed_ = 0;
  long long positions_ = 0;
};

}  // namespace ufl::analysis
