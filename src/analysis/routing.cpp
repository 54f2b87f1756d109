#include "analysis/routing.hpp"

#include <stdexcept>
#include <string>

namespace ufl::analysis {

int routed_positions(const Eigen::MatrixXd& operator_of_sample, const std::int32_t* partners) {
  if (operator_of_sample.rows() != operator_of_sample.cols()) {
    throw std::invalid_argument("routed_positions: operator must be square");
  }
  const Eigen::Index n = operator_of_sample.rows();
  int routed = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    Eigen::Index strongest = -1;
    for (Eigen::Index j = 0; j < n; ++j) {
      if (j == i) continue;
      // Strictly greater: on a tie the first index keeps its place.
      if (strongest < 0 || operator_of_sample(i, j) > operator_of_sample(i, strongest)) {
        strongest = j;
      }
    }
    if (strongest >= 0 && strongest == partners[i]) ++routed;
  }
  return routed;
}

int routed_rows(const Eigen::MatrixXd& operator_of_sample, const std::int32_t* partners,
                const std::vector<int>& rows, bool off_diagonal) {
  const Eigen::Index n = operator_of_sample.cols();
  int routed = 0;
  for (int i : rows) {
    if (i < 0 || i >= operator_of_sample.rows())
      throw std::invalid_argument("routed_rows: row " + std::to_string(i) + " is outside M");
    Eigen::Index strongest = -1;
    for (Eigen::Index j = 0; j < n; ++j) {
      if (off_diagonal && j == i) continue;
      if (strongest < 0 || operator_of_sample(i, j) > operator_of_sample(i, strongest)) {
        strongest = j;
      }
    }
    if (strongest >= 0 && strongest == partners[i]) ++routed;
  }
  return routed;
}

double routing_accuracy(const Eigen::MatrixXd& operator_of_sample, const std::int32_t* partners) {
  const Eigen::Index n = operator_of_sample.rows();
  const int routed = routed_positions(operator_of_sample, partners);
  return n < 2 ? 0.0 : static_cast<double>(routed) / static_cast<double>(n);
}

void RoutingTally::add(const Eigen::MatrixXd& operator_of_sample, const std::int32_t* partners) {
  routed_ += routed_positions(operator_of_sample, partners);
  if (operator_of_sample.rows() >= 2) positions_ += operator_of_sample.rows();
}

void RoutingTally::add(const Eigen::MatrixXd& operator_of_sample, const std::int32_t* partners,
                       const std::vector<int>& rows, bool off_diagonal) {
  routed_ += routed_rows(operator_of_sample, partners, rows, off_diagonal);
  positions_ += static_cast<long long>(rows.size());
}

double RoutingTally::accuracy() const {
  return positions_ == 0 ? 0.0 : static_cast<double>(routed_) / static_cast<double>(positions_);
}

}  // namespace ufl::analysis
