// Each branch's share of a gated head's output and operator (analysis/branch_shares.hpp,
// docs/universal_head.md §2), on hand-set windows whose shares are known in closed form: γ = 1
// leaves the linear branch nothing; γ = ½ with A·V = P·V splits the output in half with the parts
// adding (sum against parts 2), with A·V = −P·V in half with the parts cancelling (0); a window
// without values counts for nothing; the text `ufl show` prints lists the gated heads only.
#include "analysis/branch_shares.hpp"

#include <doctest/doctest.h>

using namespace ufl;

namespace {

// P's rows: the uniform causal average, 1/(i+1) for j ≤ i.
Eigen::MatrixXd causal_average(int n) {
  Eigen::MatrixXd p = Eigen::MatrixXd::Zero(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j <= i; ++j) p(i, j) = 1.0 / (i + 1);
  return p;
}

}  // namespace

TEST_CASE("γ = 1: the linear branch carries no share of the output or the operator") {
  const int n = 5, width = 3;
  const Eigen::MatrixXd a = Eigen::MatrixXd::Random(n, n) * 4;
  analysis::BranchShares shares(1.0, Eigen::MatrixXd::Random(width, 2));
  shares.add(a, causal_average(n), Eigen::MatrixXd::Random(n, width));
  CHECK(shares.output().count() == 1);
  CHECK(shares.output().linear_share() == 0.0);
  CHECK(shares.operators().linear_share() == 0.0);
  // One part alone: the sum is that part.
  CHECK(shares.output().sum_to_parts() == doctest::Approx(1.0));
  CHECK(shares.operators().sum_to_parts() == doctest::Approx(1.0));
}

TEST_CASE("γ = ½ with A·V = P·V: half the output each, the parts adding") {
  // V = x̂·W_v is one column of ones and A = I has P's row sums, so A·V = P·V = 1 while the
  // operators differ: ‖I‖² = n against ‖P‖² = Σ_i 1/(i+1), and ⟨I, P⟩ = Σ_i 1/(i+1).
  const int n = 4;
  analysis::BranchShares shares(0.5, Eigen::MatrixXd::Ones(1, 1));
  shares.add(Eigen::MatrixXd::Identity(n, n), causal_average(n), Eigen::MatrixXd::Ones(n, 1));
  CHECK(shares.output().linear_share() == doctest::Approx(0.5));
  CHECK(shares.output().sum_to_parts() == doctest::Approx(2.0));
  const double harmonic = 1 + 1.0 / 2 + 1.0 / 3 + 1.0 / 4;
  CHECK(shares.operators().linear_share() == doctest::Approx(n / (n + harmonic)));
  CHECK(shares.operators().sum_to_parts() == doctest::Approx((n + 3 * harmonic) / (n + harmonic)));
  const nlohmann::json json = shares.json();
  CHECK(json["windows"] == 1);
  CHECK(json["output"]["linear_share"].get<double>() == doctest::Approx(0.5));
  CHECK(json["operator"]["sum_to_parts"].get<double>() ==
        doctest::Approx((n + 3 * harmonic) / (n + harmonic)));
}

TEST_CASE("γ = ½ with A = −P: half each, cancelling to nothing") {
  const int n = 6, width = 4;
  const Eigen::MatrixXd p = causal_average(n);
  analysis::BranchShares shares(0.5, Eigen::MatrixXd::Random(width, 2));
  shares.add(-p, p, Eigen::MatrixXd::Random(n, width));
  CHECK(shares.output().linear_share() == doctest::Approx(0.5));
  CHECK(shares.output().sum_to_parts() == doctest::Approx(0.0).scale(1.0));
  CHECK(shares.operators().linear_share() == doctest::Approx(0.5));
  CHECK(shares.operators().sum_to_parts() == doctest::Approx(0.0).scale(1.0));
}

TEST_CASE("the shares are means over the windows; a window without values counts for nothing") {
  const int n = 3;
  const Eigen::MatrixXd p = causal_average(n);
  analysis::BranchShares shares(0.5, Eigen::MatrixXd::Identity(n, n));
  shares.add(Eigen::MatrixXd::Zero(n, n), p, Eigen::MatrixXd::Identity(n, n));  // linear: 0
  shares.add(p, Eigen::MatrixXd::Zero(n, n), Eigen::MatrixXd::Identity(n, n));  // linear: 1
  shares.add(p, p, Eigen::MatrixXd::Zero(n, n));                                // V = 0
  CHECK(shares.output().count() == 2);
  CHECK(shares.output().linear_share() == doctest::Approx(0.5));
  CHECK(shares.output().sum_to_parts() == doctest::Approx(1.0));
  CHECK(shares.operators().count() == 3);  // the operators are there without values
  CHECK(shares.operators().linear_share() == doctest::Approx((0 + 1 + 0.5) / 3));
}

TEST_CASE("the text ufl show prints: the output's linear share of each gated head, with its γ") {
  const nlohmann::json metrics = {
      {"layers",
       {{{"block", 1},
         {"heads",
          {{{"gamma", 0.9}, {"branches", {{"output", {{"linear_share", 0.25}}}}}},
           {{"gamma", 0.95}, {"branches", {{"output", {{"linear_share", 4.2e-5}}}}}}}}},
        {{"block", 2}, {"heads", {{{"kind", "content"}}}}}}}};
  CHECK(analysis::branch_shares_text(metrics) == "block 1: 0.25 (γ 0.900), 4.2e-05 (γ 0.950)");
  CHECK(analysis::branch_shares_text({{"layers", {{{"block", 1}, {"heads", {{{"kind", "x"}}}}}}}})
            .empty());
  CHECK(analysis::branch_shares_text(nlohmann::json::object()).empty());
}
