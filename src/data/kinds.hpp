#pragma once
// The pieces behind each dataset kind's record (data/registry.hpp, docs/experiment.md §1): how the
// kind draws one clean sample and what its exact position covariance Γ is. Used by the records and
// the tests.
#include <cstdint>
#include <functional>
#include <vector>

#include "data/registry.hpp"

namespace ufl::data {

// local: white noise filtered by a Gaussian bump, valid convolution (docs/experiment.md §1).
// The taps h_t for t = -⌊w/2⌋..⌊w/2⌋ (index t + ⌊w/2⌋), with ‖h‖₂ = 1.
std::vector<double> local_taps(int kernel_width);
// Γ_ij = Σ_t h_t h_{t+(j-i)}: Toeplitz, unit diagonal, zero beyond lag 2⌊w/2⌋.
Eigen::MatrixXd local_covariance(int n, int kernel_width);
void draw_local_signal(int n, int d, const std::vector<double>& taps, Rng& rng, double* clean);

// global: n/2 vectors from N(0, I_d), each at the two positions of a random pairing
// (docs/experiment.md §1). Γ: 1 on the diagonal, 1/(n-1) elsewhere (the chance that two positions
// are partners).
Eigen::MatrixXd global_covariance(int n);
void draw_global_signal(int n, int d, Rng& rng, double* clean, std::int32_t* partners);

// periodic: a sum of cosines and sines at `freqs` with random amplitudes (docs/experiment.md §1).
// The amplitude variances v_f ∝ amplitude_decay^index, Σ v_f = 1, in the order of `freqs`.
std::vector<double> periodic_variances(const std::vector<int>& freqs, double amplitude_decay);
// Γ_ts = Σ_f v_f cos(2π f (t-s)/n): circulant, rank 2K for K distinct freqs in 1 ≤ f < n/2.
Eigen::MatrixXd periodic_covariance(int n, const std::vector<int>& freqs, double amplitude_decay);
void draw_periodic_signal(int n, int d, const std::vector<int>& freqs,
                          const std::vector<double>& variances, Rng& rng, double* clean);

// lowrank: C = Q diag(s) Z with one random orthonormal basis Q per seed (docs/experiment.md §1).
// Q (n×rank) from the QR of a standard normal matrix drawn from `structure_rng`, diag(R) > 0.
Eigen::MatrixXd lowrank_basis(int n, int rank, Rng& structure_rng);
// s_j ∝ singular_value_decay^j, j = 0..rank-1, scaled so that Σ s_j² = n.
Eigen::VectorXd lowrank_singular_values(int n, int rank, double singular_value_decay);
// Γ = Q diag(s²) Qᵀ.
Eigen::MatrixXd lowrank_covariance(const Eigen::MatrixXd& basis,
                                   const Eigen::VectorXd& singular_values);
void draw_lowrank_signal(int d, const Eigen::MatrixXd& basis,
                         const Eigen::VectorXd& singular_values, Rng& rng, double* clean);

// induction: recall after a key (docs/section7.md §2). K = n/4 keys and K values, all
// N(0, I_d). First half: the K (key, value) pairs at positions (2j, 2j+1), the pairs in a random
// order. Second half: the K keys again in another random order, each followed by a blank
// (n/2 + 2i, n/2 + 2i + 1). The input shows nothing at blanks (noise only); the target there is
// the value of the key just before. Partners: each key's other copy; a value's blank and a
// blank's value (the position holding what the blank must recall).
enum class InductionRole { kKey, kValue, kBlank };
InductionRole induction_role(int n, int position);
const char* induction_role_name(InductionRole role);
std::vector<int> induction_blanks(int n);
std::vector<int> induction_second_keys(int n);  // the second half's key positions
// Γ of the target: 1 on the diagonal, 1/K between a first-half key position and a second-half
// one (the same key with probability 1/K), and between a blank and a first-half value position.
Eigen::MatrixXd induction_covariance(int n);
void draw_induction_signal(int n, int d, Rng& rng, double* clean, std::int32_t* partners);

// text (data/text.cpp): the corpus of dataset.path read into a vocabulary (its sorted
// characters), the training stream (the first 1 − dataset.val_fraction of the characters) and the
// validation stream, with the files read and skipped; no windows yet (TokenSplit::starts empty).
// copy_text draws its windows from these streams.
TokenDataset read_text_streams(const DatasetConfig& spec);

// The drawn token kinds (mqar, copy; data/drawn_tokens.cpp): dataset.train_size training and
// dataset.test_size held-out sequences of n + 1 tokens, each appended to its split by
// `draw_sequence` from the training or the test stream; and the counts their records report.
using SequenceDrawer = std::function<void(const DatasetConfig&, Rng&, TokenSplit&)>;
void draw_token_splits(const DatasetConfig& spec, std::uint64_t seed, TokenDataset& data,
                       const SequenceDrawer& draw_sequence);
void count_drawn_sequences(DatasetKind& kind);

}  // namespace ufl::data
