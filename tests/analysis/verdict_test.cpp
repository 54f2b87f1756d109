// The verdict (spec §4): one case per branch, the order of the branches, and emergence.
#include "analysis/verdict.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

using ufl::analysis::decide;
using ufl::analysis::VerdictInputs;

namespace {

// Scores that pass nothing; each case switches on what it needs.
VerdictInputs nothing_passes() {
  VerdictInputs inputs;
  inputs.iota = 0.0;
  inputs.tau = 0.5;
  inputs.ell = 0.5;
  inputs.phi = 0.5;
  inputs.alpha = 0.5;
  inputs.eta = 0.95;
  inputs.test_mse = 0.10;
  inputs.fixed_mse = 0.12;
  inputs.k = 4;
  inputs.n = 32;
  return inputs;
}

const ufl::analysis::AnalysisConfig thresholds;  // spec §3 defaults: 0.2 and 0.9s

}  // namespace

TEST_CASE("decide: one case per branch") {
  VerdictInputs inputs = nothing_passes();
  CHECK(decide(inputs, thresholds).name == "unclassified");
  CHECK_FALSE(decide(inputs, thresholds).emerged);

  SUBCASE("attention: input dependent and better than every fixed operator") {
    inputs.iota = 0.2;
    const auto verdict = decide(inputs, thresholds);
    CHECK(verdict.name == "attention");
    CHECK(verdict.emerged);
  }
  SUBCASE("input dependent but no better than M_fix is not attention") {
    inputs.iota = 0.6;
    inputs.test_mse = inputs.fixed_mse;
    CHECK(decide(inputs, thresholds).name == "unclassified");
  }
  SUBCASE("convolution needs both Toeplitz and local") {
    inputs.tau = 0.9;
    CHECK(decide(inputs, thresholds).name == "unclassified");
    inputs.ell = 0.9;
    CHECK(decide(inputs, thresholds).name == "convolution");
    CHECK(decide(inputs, thresholds).emerged);
  }
  SUBCASE("fourier") {
    inputs.phi = 0.97;
    CHECK(decide(inputs, thresholds).name == "fourier");
  }
  SUBCASE("svd needs k < n") {
    inputs.alpha = 0.99;
    CHECK(decide(inputs, thresholds).name == "svd");
    inputs.k = inputs.n;
    CHECK(decide(inputs, thresholds).name == "unclassified");
  }
}

TEST_CASE("decide: the first matching branch wins") {
  VerdictInputs inputs = nothing_passes();
  // A circulant band is Toeplitz, local and Fourier at once: it is called convolution.
  inputs.tau = inputs.ell = inputs.phi = inputs.alpha = 1.0;
  CHECK(decide(inputs, thresholds).name == "convolution");
  // Input dependence beating M_fix outranks every fixed-operator reading.
  inputs.iota = 0.5;
  CHECK(decide(inputs, thresholds).name == "attention");
  // Fourier before SVD.
  inputs = nothing_passes();
  inputs.phi = inputs.alpha = 1.0;
  CHECK(decide(inputs, thresholds).name == "fourier");
}

TEST_CASE("decide: a fixed-operator verdict emerges only with η ≥ eta_min") {
  VerdictInputs inputs = nothing_passes();
  inputs.tau = inputs.ell = 1.0;  // e.g. a scaled identity: Toeplitz and local
  inputs.eta = 0.5;               // but a poor denoiser
  auto verdict = decide(inputs, thresholds);
  CHECK(verdict.name == "convolution");
  CHECK_FALSE(verdict.emerged);
  inputs.eta = 0.9;
  CHECK(decide(inputs, thresholds).emerged);
  // Attention does not need η.
  inputs.iota = 0.3;
  inputs.eta = 0.1;
  verdict = decide(inputs, thresholds);
  CHECK(verdict.name == "attention");
  CHECK(verdict.emerged);
}

TEST_CASE("decide: thresholds come from the config, NaN scores fail") {
  VerdictInputs inputs = nothing_passes();
  inputs.phi = 0.8;
  ufl::analysis::AnalysisConfig loose;
  loose.phi_min = 0.75;
  CHECK(decide(inputs, thresholds).name == "unclassified");
  CHECK(decide(inputs, loose).name == "fourier");
  inputs.phi = std::numeric_limits<double>::quiet_NaN();
  CHECK(decide(inputs, loose).name == "unclassified");
}
