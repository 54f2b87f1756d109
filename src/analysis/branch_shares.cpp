#include "analysis/branch_shares.hpp"

#include <fmt/format.h>

namespace ufl::analysis {

void PartShares::add(const Eigen::MatrixXd& linear, const Eigen::MatrixXd& softmax) {
  const double parts = linear.squaredNorm() + softmax.squaredNorm();
  if (!(parts > 0)) return;  // nothing to share out (V = 0)
  ++count_;
  share_sum_ += linear.squaredNorm() / parts;
  ratio_sum_ += (linear + softmax).squaredNorm() / parts;
}

void BranchShares::add(const Eigen::MatrixXd& linear, const Eigen::MatrixXd& softmax,
                       const Eigen::MatrixXd& input) {
  const Eigen::MatrixXd weighted_linear = (1 - gamma_) * linear;
  const Eigen::MatrixXd weighted_softmax = gamma_ * softmax;
  const Eigen::MatrixXd values = input * value_weights_;
  operator_.add(weighted_linear, weighted_softmax);
  output_.add(weighted_linear * values, weighted_softmax * values);
}

nlohmann::json BranchShares::json() const {
  auto part = [](const PartShares& shares) {
    return nlohmann::json{{"linear_share", shares.linear_share()},
                          {"sum_to_parts", shares.sum_to_parts()}};
  };
  return {{"windows", output_.count()}, {"output", part(output_)}, {"operator", part(operator_)}};
}

std::string branch_shares_text(const nlohmann::json& metrics) {
  std::string text;
  for (const nlohmann::json& layer : metrics.value("layers", nlohmann::json::array())) {
    std::string shares;
    for (const nlohmann::json& head : layer.value("heads", nlohmann::json::array())) {
      if (!head.contains("branches")) continue;
      shares += fmt::format("{}{:.2g} (γ {:.3f})", shares.empty() ? "" : ", ",
                            head["branches"]["output"].value("linear_share", 0.0),
                            head.value("gamma", 0.0));
    }
    if (shares.empty()) continue;
    text +=
        fmt::format("{}block {}: {}", text.empty() ? "" : "; ", layer.value("block", 0), shares);
  }
  return text;
}

}  // namespace ufl::analysis
