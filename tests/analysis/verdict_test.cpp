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

// ---- the per-layer verdict of a stack (spec section7.md §3) ------------------------------------

namespace {
using ufl::analysis::decide_layer;
using ufl::analysis::LayerVerdictInputs;

// A layer that adds to its stream, spread over a wide band, passing nothing else.
LayerVerdictInputs busy_layer() { return LayerVerdictInputs{nothing_passes(), 0, 5, 0.5}; }
}  // namespace

TEST_CASE("layer verdict: a scaled identity is diagonal, a shift or a band is a convolution") {
  const ufl::analysis::AnalysisConfig thresholds;
  LayerVerdictInputs layer = busy_layer();
  layer.scores.tau = layer.scores.ell = 0.99;
  CHECK(decide_layer(layer, thresholds) == "convolution");  // a band of 5 around offset 0
  layer.band_width = 1;
  CHECK(decide_layer(layer, thresholds) == "diagonal");  // one diagonal at offset 0
  layer.dominant_offset = -1;
  CHECK(decide_layer(layer, thresholds) == "convolution");  // a shift
  // The spec §4 verdict of the same scores calls the identity a convolution.
  CHECK(decide(layer.scores, thresholds).name == "convolution");
}

TEST_CASE("layer verdict: order silent, attention, diagonal, convolution, fourier, svd") {
  const ufl::analysis::AnalysisConfig thresholds;
  LayerVerdictInputs layer = busy_layer();
  CHECK(decide_layer(layer, thresholds) == "unclassified");
  layer.scores.alpha = 0.95;
  CHECK(decide_layer(layer, thresholds) == "svd");
  layer.scores.k = layer.scores.n;
  CHECK(decide_layer(layer, thresholds) == "unclassified");  // k = n: trivially aligned
  layer.scores.phi = 0.95;
  CHECK(decide_layer(layer, thresholds) == "fourier");
  layer.scores.tau = layer.scores.ell = 0.95;
  CHECK(decide_layer(layer, thresholds) == "convolution");
  layer.band_width = 1;
  CHECK(decide_layer(layer, thresholds) == "diagonal");
  layer.scores.iota = 0.5;  // input-dependent, and the stack beats M_fix
  CHECK(decide_layer(layer, thresholds) == "attention");
  layer.scores.test_mse = 0.2;  // the stack does not beat M_fix
  CHECK(decide_layer(layer, thresholds) == "diagonal");
  layer.branch_gain = 0.01;
  CHECK(decide_layer(layer, thresholds) == "silent");
  layer.branch_gain = std::numeric_limits<double>::quiet_NaN();
  CHECK(decide_layer(layer, thresholds) == "silent");
}
