#pragma once
// The dataset kinds, each one record (docs/experiment.md §1): what it draws, its rules, its
// covariance Γ, its best fixed operator and optimum, whether its samples carry partners, and the
// operator the seed paper claims emerges on it. Every other file asks the record; none compares
// kind names. A new kind is one file defining its record plus one line in data/registry.cpp.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "data/dataset.hpp"
#include "data/rng.hpp"
#include "data/tokens.hpp"

namespace ufl::data {

// Draws one clean n×d sample, row-major (position i, channel c), into `clean` (n·d values).
// Kinds with partners also write the n partner positions into `partners`.
using SignalDrawer = std::function<void(Rng& rng, double* clean, std::int32_t* partners)>;

// A rule a spec breaks: the config key and what its value must be ("even for kind 'global'").
struct BrokenRule {
  std::string key;  // "dataset.n"; empty when every rule holds
  std::string rule;
  explicit operator bool() const { return !key.empty(); }
};

// A routing score for kinds with partners (docs/section7.md §4): the share of `rows` whose
// largest entry of M(X) sits at the row's partner; with `off_diagonal` the row's own entry is
// left out (the largest weight on another position).
struct RoutingCheck {
  std::string name;  // the metrics key: "blank_routing"
  std::function<std::vector<int>(const DatasetConfig&)> rows;
  bool off_diagonal = true;
};

struct DatasetKind {
  std::string name;              // the value of dataset.kind
  std::string summary;           // one line for --describe and the docs
  std::string claimed_operator;  // what the seed paper says emerges: "convolution", …; empty:
                                 // the paper claims nothing (the planted kinds)
  // The samples carry each position's partner, and the optimum is per sample: it uses the
  // partners, which no fixed matrix knows (global).
  bool has_partners = false;

  // The rules this kind adds: on its own keys (dataset.freqs) and on shared ones (global: n even).
  std::function<BrokenRule(const DatasetConfig&)> check;
  // Per-seed structure drawn before the samples from the structure stream (lowrank's basis Q).
  std::function<void(Dataset&, Rng& structure_rng)> draw_structure;
  // Γ, the n×n position covariance of the clean signal (the target C), exactly.
  std::function<Eigen::MatrixXd(const Dataset&)> covariance;
  // Positions whose clean value is in the target but not in the input: there X is noise only
  // (induction's blanks). The best fixed operator is then E[C Xᵀ]E[X Xᵀ]⁻¹ = ΓP(PΓP + σ²I)⁻¹, P
  // the projector off these rows, rather than Γ(Γ+σ²I)⁻¹. Empty: none.
  std::function<std::vector<int>(const DatasetConfig&)> hidden_rows;
  // The role of each position when positions play fixed roles ("key", "value", "blank"): the
  // analysis reports the MSE per role. Empty: positions have no roles.
  std::function<std::vector<std::string>(const DatasetConfig&)> row_roles;
  // has_partners kinds: routing scores beyond routing_accuracy (every position to its partner).
  std::vector<RoutingCheck> routing_checks;
  // Kinds whose optimum routes by content: the rows a single dot-product softmax head compares
  // (global: the tokens themselves; induction: each row's previous row), from a sample's input,
  // and the rows its estimate is scored on (empty: all). They define the in-class ceiling
  // eta_ceiling (analysis/softmax_ceiling.hpp). Empty function: no ceiling.
  std::function<Eigen::MatrixXd(const Eigen::MatrixXd& input)> head_keys;
  std::function<std::vector<int>(const DatasetConfig&)> head_rows;
  // One clean sample (and its partners).
  std::function<SignalDrawer(const Dataset&)> signal_drawer;
  // has_partners kinds: the optimal estimator of one sample as an n×n matrix, from its partners,
  // and its estimate of the clean sample from the noisy one (n×d), computed the direct way.
  std::function<Eigen::MatrixXd(const Dataset&, const std::int32_t* partners)> partner_optimum;
  std::function<Eigen::MatrixXd(const Dataset&, const Eigen::MatrixXd& noisy,
                                const std::int32_t* partners)>
      partner_estimate;

  // Of the dataset keys every run's config.json holds, the ones that size and shape float samples,
  // those this kind reads: all for float samples; a token kind lists its own (mqar and copy draw
  // dataset.train_size and dataset.test_size sequences; text reads none). A run of a kind that
  // does not read one refuses a value other than the default, which it would ignore
  // (config/keys.hpp, Key::readers).
  std::vector<std::string> shared_keys = {"dataset.d", "dataset.noise", "dataset.train_size",
                                          "dataset.test_size"};

  // Token kinds (text, mqar, copy, copy_text; task next_token): reads or draws the token data.
  // Float kinds leave it empty and fill the members above.
  std::function<TokenDataset(const DatasetConfig&, std::uint64_t seed)> tokens;
  // Kinds that read the user's files (text): refuses files that cannot be data, judged from a
  // bounded prefix before the memory estimate counts their sizes (std::invalid_argument, one
  // line naming the file). Empty: nothing to check.
  std::function<void(const DatasetConfig&)> check_files;
  // The key that sets how much data there is, for the advice of a run too large for memory (text
  // ignores dataset.train_size: its size is its file's).
  std::string size_key = "dataset.train_size";
  // Token kinds: the key that sets the vocabulary's size, for the advice of a run whose embedding
  // and logits do not fit (mqar: dataset.vocab; text: its characters, dataset.path).
  std::string vocabulary_key;
  // Token kinds: the largest vocabulary and the number of tokens the data will hold, for the
  // memory estimate before anything is read (train/resource_estimate.hpp).
  std::function<double(const DatasetConfig&)> vocabulary_bound, token_count;
  // Token kinds with a drawn vocabulary (mqar, copy): dataset.vocab when the config omits it.
  int default_vocab = 0;
  // Kinds that copy segments (copy, copy_text): dataset.segment_min and segment_max when the
  // config omits them.
  int default_segment_min = 0, default_segment_max = 0;
  // Token kinds: the held-out windows every evaluation scores.
  std::function<int(const DatasetConfig&)> held_out_windows;
};

// Every registered kind, in the order --describe and the docs list them.
const std::vector<DatasetKind>& dataset_kinds();
// The record of `name`; nullptr if none.
const DatasetKind* find_dataset_kind(const std::string& name);
// The record of `name`; throws std::invalid_argument listing the kinds if none.
const DatasetKind& dataset_kind(const std::string& name);
// "local, global, periodic, lowrank, induction".
std::string dataset_kind_names();

// Throws std::invalid_argument, "dataset.<key>: must be …", when `spec` cannot be generated: the
// shared rules, then the kind's own. Parameters of other kinds are not checked: they are not used.
void validate(const DatasetConfig& spec);

// The record of each kind, defined in its own file.
DatasetKind local_kind();
DatasetKind global_kind();
DatasetKind periodic_kind();
DatasetKind lowrank_kind();
DatasetKind induction_kind();
DatasetKind text_kind();
DatasetKind mqar_kind();
DatasetKind copy_kind();
DatasetKind copy_text_kind();
// The planted kinds (docs/planted.md): optima outside the four families of Section 8.
DatasetKind hadamard_kind();
DatasetKind haar_kind();
DatasetKind dct_kind();
DatasetKind butterfly_kind();

}  // namespace ufl::data
