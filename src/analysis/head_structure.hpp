#pragma once
// What the seeds say of trained heads, measured on one head at a time (docs/head_structure.md §1):
//   seed 001: the spectrum of a head's n×n mixing matrix M(X): effective rank, k90, k99, and the
//             rank-k truncation the loss-against-rank test puts in its place;
//   seed 002: how far a head's scores are from the distance form softmax(−‖q_i − k_j‖²/2), which
//             dot-product scores equal exactly when every key has the same norm;
//   seed 003: Ω = A·diag(σ)·Bᵀ over x̃ = [x̂, e_i, 1], its spectrum, and what its top rank-one parts
//             read: the token-embedding span, the position-embedding span, the bias coordinate.
// Pure functions of matrices: analysis/next_token_heads.cpp feeds them a run's heads.
#include <Eigen/Dense>
#include <vector>

#include "model/mixer.hpp"

namespace ufl::analysis {

// ---- seed 001 ----------------------------------------------------------------------------------

struct RankProfile {
  double effective_rank = 0;  // exp(H(σ/Σσ)), as spectrum.hpp
  int k90 = 0, k99 = 0;       // fewest leading σ holding 90 % / 99 % of Σσ²
};
RankProfile rank_profile(const Eigen::VectorXd& singular_values);

// The best rank-k approximation of M (Eckart–Young: its k leading singular triplets); M itself
// when k ≥ min(rows, cols).
Eigen::MatrixXd truncated(const Eigen::MatrixXd& m, int k);

// The uniform causal average: row i is 1/(i+1) on j ≤ i (what a head with constant scores does).
Eigen::MatrixXd uniform_causal_average(int n);

// Mean, median and the 10th and 90th percentiles of a sample (nearest rank); zeros when empty.
struct Distribution {
  double mean = 0, median = 0, p10 = 0, p90 = 0;
};
Distribution distribution_of(std::vector<double> values);

// ---- seed 002 ----------------------------------------------------------------------------------

// For scores S = Q·Kᵀ (n×r each) on one context. S_ij = ½‖q_i‖² + ½‖k_j‖² − ½‖q_i − k_j‖²: in
// each row the first term cancels in the softmax, so the head computes the distance form exactly
// when ½‖k_j‖² is the same for every key a row reads. Q and K are taken in the gauge Q/c, K·c
// with equal mean squared norms (S is unchanged; the split of a scale between them is arbitrary).
struct DistanceFormGap {
  // RMS over rows of the spread (standard deviation over the keys row i reads) of ½‖k_j‖²,
  // divided by the RMS over rows of the spread of S_ij: 0 = exactly the distance form.
  double gap = 0;
  // sd/mean of ‖k_j‖² over all keys: the gauge-free version (0 = equal norms).
  double key_norm_variation = 0;
};
DistanceFormGap distance_form_gap(const Eigen::MatrixXd& queries, const Eigen::MatrixXd& keys,
                                  bool causal);

// ---- seed 003 ----------------------------------------------------------------------------------

// Ω = A·diag(σ)·Bᵀ, (D + n + 1)², rows and columns over x̃ = [x̂, e_i, 1].
Eigen::MatrixXd omega_of(const model::Factors& factors);

// Orthonormal bases, in the coordinates of x̂ (D), of the directions the token and the position
// embeddings put into a head's input: each table's rows as the block's norm maps a direction
// (centred over the channels for a layer norm, then scaled by its gain), keeping the fewest
// leading singular directions that hold `share` of the mapped table's ‖·‖²_F.
struct FeatureSpans {
  Eigen::MatrixXd token, position;  // D × k_token, D × k_position
};
FeatureSpans feature_spans(const Eigen::MatrixXd& token_table,
                           const Eigen::MatrixXd& position_table, const Eigen::VectorXd& gain,
                           bool centred, double share = 0.9);

// The share of a unit vector u over x̃ = [x̂ (D), e_i (n), 1] that lies in each span: token =
// ‖P_token u_x̂‖², position = ‖P_position u_x̂‖² + ‖u_e‖² (the one-hot position rows are position
// too), bias = u_1². The two spans may overlap, so the shares need not sum to 1 or less.
struct ReadShares {
  double token = 0, position = 0, bias = 0;
};
ReadShares read_shares(const Eigen::VectorXd& unit, const FeatureSpans& spans, int d);

// One rank-one part D_k = σ_k u_k v_kᵀ of Ω: u_k reads the query position, v_k the key position.
struct OmegaPart {
  double sigma = 0;
  ReadShares query, key;
};
struct OmegaStructure {
  Eigen::VectorXd singular_values;
  RankProfile profile;
  std::vector<OmegaPart> parts;  // the leading `parts` of them
};
OmegaStructure omega_structure(const Eigen::MatrixXd& omega, const FeatureSpans& spans, int d,
                               int parts);

}  // namespace ufl::analysis
