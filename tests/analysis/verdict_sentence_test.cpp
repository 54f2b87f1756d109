// The verdict in words: each kind of verdict names the test behind it and, for a fixed operator,
// why it did or did not emerge (η against eta_min).
#include "analysis/verdict_sentence.hpp"

#include <doctest/doctest.h>

using namespace ufl::analysis;
using nlohmann::json;

namespace {

json metrics_with(const std::string& verdict, bool emerged, double eta) {
  return {{"verdict", verdict},
          {"emerged", emerged},
          {"claimed", "convolution"},
          {"claim_holds", emerged && verdict == "convolution"},
          {"iota", 0.001},
          {"tau", 0.991},
          {"ell", 0.979},
          {"phi", 0.5},
          {"alpha", 1.0},
          {"eta", eta},
          {"test_mse", 0.2},
          {"fixed_mse", 0.1},
          {"thresholds",
           {{"iota_min", 0.2},
            {"tau_min", 0.9},
            {"ell_min", 0.9},
            {"phi_min", 0.9},
            {"alpha_min", 0.9},
            {"eta_min", 0.9}}}};
}

}  // namespace

TEST_CASE("a fixed-operator verdict says whether η reached eta_min") {
  CHECK(verdict_sentence(metrics_with("convolution", true, 0.998)) ==
        "verdict: convolution, emerged — M̄ is Toeplitz and local (τ 0.991 ≥ 0.9, ℓ 0.979 ≥ 0.9) "
        "and reaches η 0.998 ≥ eta_min 0.9 of the optimum's accuracy; claimed: convolution "
        "(holds)");
  CHECK(verdict_sentence(metrics_with("convolution", false, 0.31)) ==
        "verdict: convolution, not emerged — M̄ is Toeplitz and local (τ 0.991 ≥ 0.9, ℓ 0.979 ≥ "
        "0.9) but reaches only η 0.31 < eta_min 0.9 of the optimum's accuracy; claimed: "
        "convolution (does not hold)");
  CHECK(verdict_sentence(metrics_with("svd", true, 0.99)).find("(α 1 ≥ 0.9)") != std::string::npos);
}

TEST_CASE("attention and unclassified name their tests") {
  json attention = metrics_with("attention", true, 0.66);
  attention["iota"] = 0.33;
  attention["test_mse"] = 0.1687;
  attention["fixed_mse"] = 0.199;
  CHECK(verdict_sentence(attention) ==
        "verdict: attention, emerged — M(X) depends on the input (ι 0.33 ≥ 0.2) and beats the "
        "best fixed operator (test MSE 0.1687 < 0.199); claimed: convolution (does not hold)");
  const std::string none = verdict_sentence(metrics_with("unclassified", false, 0.5));
  CHECK(none.rfind("verdict: unclassified — no operator's test passed (attention: ι 0.001 < 0.2",
                   0) == 0);
  CHECK(none.find("Fourier: φ 0.5 < 0.9") != std::string::npos);
}

TEST_CASE("an unclassified verdict names the condition that failed, not the one that held") {
  // ι passes but the MSE is above the best fixed operator's; α passes but k99 = n.
  json metrics = metrics_with("unclassified", false, 0.5);
  metrics["iota"] = 0.34;
  metrics["test_mse"] = 0.25;
  metrics["fixed_mse"] = 0.2;
  metrics["targets_k99"] = 4;
  metrics["singular_values"] = {1.0, 0.5, 0.25, 0.1};
  const std::string sentence = verdict_sentence(metrics);
  CHECK(sentence.find("attention: ι 0.34 ≥ 0.2, test MSE 0.25 ≥ the best fixed operator's 0.2;") !=
        std::string::npos);
  CHECK(sentence.find("SVD: α 1 ≥ 0.9, the targets' k99 4 = n 4)") != std::string::npos);
  // Once said wrongly: "a test MSE below the best fixed operator's", "with k99 < n".
  CHECK(sentence.find("below the best fixed") == std::string::npos);
  CHECK(sentence.find("with k99 < n") == std::string::npos);
  metrics["targets_k99"] = 2;
  metrics["test_mse"] = 0.1;
  const std::string other = verdict_sentence(metrics);
  CHECK(other.find("test MSE 0.1 < the best fixed operator's 0.2") != std::string::npos);
  CHECK(other.find("the targets' k99 2 < n 4") != std::string::npos);
}
