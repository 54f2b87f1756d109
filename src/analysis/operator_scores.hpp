#pragma once
// The scores of docs/experiment.md §3 for one mean operator M̄ (and its per-sample spread ι), and
// the bilinear-form view of a layer's Ω (seed 003), as JSON and arrays. Shared by the single-layer
// measurements and those of each layer of a stack.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/named_array.hpp"
#include "analysis/spectrum.hpp"
#include "model/mixer.hpp"

namespace ufl::analysis {

struct OperatorScores {
  double iota = 0, tau = 0, ell = 0, phi = 0, alpha = 0;
  Spectrum spectrum;
};

// τ, ℓ (half width `half_width`), φ, α against `reference_basis` and the spectrum of `mean`.
OperatorScores score_operator(const Eigen::MatrixXd& mean, double iota, int half_width,
                              const Eigen::MatrixXd& reference_basis);

// iota, tau, ell, phi, alpha, effective_rank, k99, singular_values.
nlohmann::json scores_json(const OperatorScores& scores);

// <name>_singular_values, <name>_U, <name>_V.
void add_svd_arrays(std::vector<NamedArray>& arrays, const std::string& name,
                    const Spectrum& spectrum);

// `count` float samples of rows×cols as one array.
NamedArray samples_array(std::string name, const std::vector<float>& values, std::size_t count,
                         std::size_t rows, std::size_t cols);

Eigen::MatrixXd to_matrix(const float* values, int rows, int cols);  // row-major floats
std::vector<double> to_list(const Eigen::VectorXd& vector);

// Ω = A·diag(σ)·Bᵀ over homogeneous coordinates [h; e; 1] (seed 003), with its content–content
// (width×width) and position–position (n×n) blocks: the "bilinear" metrics, and the arrays
// <prefix>Omega, <prefix>Omega_{singular_values,U,V} and likewise for Omega_content and
// Omega_position.
nlohmann::json bilinear_view(const model::Factors& factors, int width, int n,
                             const std::string& prefix, std::vector<NamedArray>& arrays);

}  // namespace ufl::analysis
