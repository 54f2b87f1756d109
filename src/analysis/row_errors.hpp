#pragma once
// Mean squared error by the role of the row (docs/section7.md §4): for datasets whose positions
// play fixed roles (induction's keys, values and blanks), how well each kind of row is estimated.
#include <Eigen/Dense>
#include <map>
#include <string>
#include <vector>

namespace ufl::analysis {

class RoleErrorTally {
 public:
  // roles[i]: the role of position i.
  explicit RoleErrorTally(std::vector<std::string> roles);
  // One sample's estimate (n×d) against its target (n×d floats, row-major).
  void add(const Eigen::MatrixXd& estimate, const float* target);
  // Per role, the mean over its rows' elements of (estimate − target)²; roles in sorted order.
  std::map<std::string, double> mse() const;

 private:
  std::vector<std::string> roles_;
  std::map<std::string, double> squared_error_;
  std::map<std::string, long long> elements_;
};

}  // namespace ufl::analysis
