#pragma once
// Routing accuracy of docs/experiment.md §3 (global dataset): does each token attend most to its
// partner?
#include <Eigen/Dense>
#include <cstdint>
#include <vector>

namespace ufl::analysis {

// The number of positions i whose largest off-diagonal entry M_s(i, j), j ≠ i, sits at
// j = partners[i] (on ties the first such j wins). M_s is n×n; partners holds n positions.
// Throws std::invalid_argument for a non-square M_s.
int routed_positions(const Eigen::MatrixXd& operator_of_sample, const std::int32_t* partners);

// routed_positions / n; 0 for n < 2 (no off-diagonal entry to route to).
double routing_accuracy(const Eigen::MatrixXd& operator_of_sample, const std::int32_t* partners);

// Routing of chosen rows (docs/section7.md §4: induction's blanks and second-half keys): the
// number of rows i in `rows` whose largest entry M_s(i, j) — over j ≠ i when `off_diagonal`, over
// every j otherwise — sits at j = partners[i] (on ties the first such j wins).
int routed_rows(const Eigen::MatrixXd& operator_of_sample, const std::int32_t* partners,
                const std::vector<int>& rows, bool off_diagonal);

// Routing accuracy over many samples: routed positions over all positions seen.
class RoutingTally {
 public:
  void add(const Eigen::MatrixXd& operator_of_sample, const std::int32_t* partners);
  // Only `rows` (see routed_rows).
  void add(const Eigen::MatrixXd& operator_of_sample, const std::int32_t* partners,
           const std::vector<int>& rows, bool off_diagonal);
  double accuracy() const;  // 0 before any position was seen

 private:
  long long routed_ = 0;
  long long positions_ = 0;
};

}  // namespace ufl::analysis
