#include "analysis/row_errors.hpp"

#include <stdexcept>

namespace ufl::analysis {

RoleErrorTally::RoleErrorTally(std::vector<std::string> roles) : roles_(std::move(roles)) {
  for (const std::string& role : roles_) squared_error_[role] = 0.0, elements_[role] = 0;
}

void RoleErrorTally::add(const Eigen::MatrixXd& estimate, const float* target) {
  if (estimate.rows() != static_cast<Eigen::Index>(roles_.size()))
    throw std::invalid_argument("RoleErrorTally: one role per row of the estimate");
  const Eigen::Index d = estimate.cols();
  for (Eigen::Index i = 0; i < estimate.rows(); ++i) {
    double sum = 0.0;
    for (Eigen::Index c = 0; c < d; ++c) {
      const double error = estimate(i, c) - double(target[i * d + c]);
      sum += error * error;
    }
    squared_error_[roles_[i]] += sum;
    elements_[roles_[i]] += d;
  }
}

std::map<std::string, double> RoleErrorTally::mse() const {
  std::map<std::string, double> result;
  for (const auto& [role, sum] : squared_error_) {
    const long long count = elements_.at(role);
    result[role] = count == 0 ? 0.0 : sum / double(count);
  }
  return result;
}

}  // namespace ufl::analysis
