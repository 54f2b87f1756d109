#include "analysis/next_token_heads.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "analysis/block_heads.hpp"
#include "analysis/head_structure.hpp"
#include "analysis/spectrum.hpp"
#include "io/stop_request.hpp"
#include "task/next_token_session.hpp"

namespace ufl::analysis {
namespace {

using nlohmann::json;

// What one head collects over the windows.
struct HeadSamples {
  std::vector<double> effective_rank, k90, k99, gap, key_variation;
  Eigen::VectorXd singular_sum;
};

json distribution_json(const std::vector<double>& values) {
  const Distribution d = distribution_of(values);
  return {{"mean", d.mean}, {"median", d.median}, {"p10", d.p10}, {"p90", d.p90}};
}

json shares_json(const ReadShares& shares) {
  return {{"token", shares.token}, {"position", shares.position}, {"bias", shares.bias}};
}

// The heads of block l (its parts measured as heads, model/block.hpp), in order, each with its own
// mixer.
std::vector<const model::MixerPart<float>*> heads_of(const model::Model<float>& model, int l) {
  std::vector<const model::MixerPart<float>*> heads;
  for (int p : model::part_indices(model, l, model::Measured::kAsHead))
    heads.push_back(&model.blocks[l]->parts[p]);
  return heads;
}

// Ω's factors of every head with scores (input-dependent mixers), [block][head].
std::vector<std::vector<std::optional<model::Factors>>> score_factors(
    const model::Model<float>& model) {
  std::vector<std::vector<std::optional<model::Factors>>> factors(model.blocks.size());
  for (int l = 0; l < model.depth(); ++l)
    for (const model::MixerPart<float>* head : heads_of(model, l))
      factors[l].push_back(head->mixer->input_dependent()
                               ? head->mixer->factors(model.views(head->mixer_slices), head->shape)
                               : std::nullopt);
  return factors;
}

// x̃·F·diag(√σ) for x̃ = [x̂, e_i, 1]: the queries (F = A) or keys (F = B) with the scale split
// evenly, so that S = queries·keysᵀ.
Eigen::MatrixXd projected(const Eigen::MatrixXd& x, const Eigen::MatrixXd& factor,
                          const Eigen::VectorXd& sigma) {
  const Eigen::Index n = x.rows(), d = x.cols();
  Eigen::MatrixXd out = x * factor.topRows(d) + factor.middleRows(d, n);
  out.rowwise() += factor.row(d + n);
  return out * sigma.cwiseSqrt().asDiagonal();
}

// Every head's spectra (and, with `factors`, distance-form gaps) over the windows.
std::vector<std::vector<HeadSamples>> collect(
    model::Model<float>& model, const data::TokenSplit& split, int windows,
    const std::vector<std::vector<std::optional<model::Factors>>>* factors) {
  std::vector<std::vector<HeadSamples>> samples(model.blocks.size());
  std::vector<std::vector<int>> head_parts(model.blocks.size());  // [block][head] → its part
  for (int l = 0; l < model.depth(); ++l)
    head_parts[l] = model::part_indices(model, l, model::Measured::kAsHead);
  task::TokenEvaluator evaluator(model, windows, model::LayerKernels::kComposite);
  const int n = model.n;
  evaluator.score(
      split, windows, [&](const task::TokenGraph& graph, const Tape<float>& tape, int, int slot) {
        for (std::size_t l = 0; l < graph.model.blocks.size(); ++l) {
          samples[l].resize(head_parts[l].size());
          for (std::size_t k = 0; k < head_parts[l].size(); ++k) {
            const model::MixerGraph& recorded = graph.model.blocks[l].parts[head_parts[l][k]];
            // A distance head's scores are the distance form exactly: no gap to measure.
            const bool dot_scores =
                !model.blocks[l]->parts[head_parts[l][k]].mixer->distance_scores();
            HeadSamples& head = samples[l][k];
            const Eigen::MatrixXd m = tape.value(recorded.M).view(slot).cast<double>();
            const Eigen::VectorXd sigma = singular_values_of(m);
            const RankProfile profile = rank_profile(sigma);
            head.effective_rank.push_back(profile.effective_rank);
            head.k90.push_back(profile.k90);
            head.k99.push_back(profile.k99);
            if (head.singular_sum.size() == 0) head.singular_sum = Eigen::VectorXd::Zero(n);
            head.singular_sum += sigma;
            if (factors == nullptr || !(*factors)[l][k] || !dot_scores) continue;
            const model::Factors& f = *(*factors)[l][k];
            const Eigen::MatrixXd x = tape.value(recorded.input).view(slot).cast<double>();
            const DistanceFormGap gap =
                distance_form_gap(projected(x, f.A, f.sigma), projected(x, f.B, f.sigma), true);
            head.gap.push_back(gap.gap);
            head.key_variation.push_back(gap.key_norm_variation);
          }
        }
      });
  interrupt::throw_if_stop_requested("analysis");
  return samples;
}

json spectrum_json(const HeadSamples& head) {
  const double count = double(std::max<std::size_t>(1, head.k99.size()));
  std::vector<double> mean_sigma(head.singular_sum.data(),
                                 head.singular_sum.data() + head.singular_sum.size());
  for (double& value : mean_sigma) value /= count;
  return {{"effective_rank", distribution_json(head.effective_rank)},
          {"k90", distribution_json(head.k90)},
          {"k99", distribution_json(head.k99)},
          {"mean_singular_values", mean_sigma}};
}

// Validation loss over the windows with every head's M replaced by its rank-k truncation
// (`evaluator` runs `model`).
double truncated_loss(const model::Model<float>& model, task::TokenEvaluator& evaluator,
                      const data::TokenSplit& split, int windows, int rank) {
  std::vector<int> head_ids;
  const std::vector<model::BlockGraph>& blocks = evaluator.graph().model.blocks;
  for (int l = 0; l < model.depth(); ++l)
    for (int p : model::part_indices(model, l, model::Measured::kAsHead))
      head_ids.push_back(blocks[l].parts[p].M.id);
  std::sort(head_ids.begin(), head_ids.end());
  const Tape<float>::ForwardEdit edit = [&](Tape<float>& tape, Var output, int first, int end) {
    if (!std::binary_search(head_ids.begin(), head_ids.end(), output.id)) return;
    for (int b = first; b < end; ++b) {
      MatrixMap<float> m = tape.value(output).matrix(b);
      m = truncated(m.cast<double>(), rank).cast<float>();
    }
  };
  return evaluator.score(split, windows, {}, edit).loss;
}

}  // namespace

std::vector<int> truncation_ranks(int n) {
  std::vector<int> ranks;
  for (int k = 1; k < n; k *= 2) ranks.push_back(k);
  return ranks;
}

json head_structure(model::Model<float>& trained, model::Model<float>& initial,
                    const data::TokenSplit& split, int windows) {
  windows = std::min(windows, split.count());
  const int n = trained.n;
  const auto factors = score_factors(trained);
  const auto after = collect(trained, split, windows, &factors);
  const auto initial_factors = score_factors(initial);
  const auto before = collect(initial, split, windows, &initial_factors);

  json result;
  result["windows"] = windows;
  result["n"] = n;
  const Eigen::VectorXd uniform = singular_values_of(uniform_causal_average(n));
  const RankProfile uniform_profile = rank_profile(uniform);
  result["uniform_causal_average"] = {{"effective_rank", uniform_profile.effective_rank},
                                      {"k90", uniform_profile.k90},
                                      {"k99", uniform_profile.k99}};

  // Seed 001's functional test: the loss with every head truncated to rank k.
  task::TokenEvaluator evaluator(trained, windows, model::LayerKernels::kComposite);
  result["full_loss"] = evaluator.score(split, windows).loss;
  json truncation = json::array();
  for (int rank : truncation_ranks(n)) {
    truncation.push_back(
        {{"rank", rank}, {"loss", truncated_loss(trained, evaluator, split, windows, rank)}});
    interrupt::throw_if_stop_requested("analysis");
  }
  result["truncation"] = truncation;

  // Seed 003's spans: the token and position embeddings as the norm each block's heads read the
  // stream through maps them (Block::input_norm: gain, and bias for layernorm; none: the gain 1).
  const Eigen::MatrixXd token_table =
      trained.params.matrix(task::token_table(trained)).cast<double>();
  const Eigen::MatrixXd position_table =
      trained.position_table >= 0 ? trained.params.matrix(trained.position_table).cast<double>()
                                  : Eigen::MatrixXd(0, trained.width);
  // A hybrid model's heads (not all of one mixer) each name theirs; a model of one mixer's heads
  // keeps the file as it was (its config names the mixer).
  bool hybrid = false;
  for (int l = 0; l < trained.depth(); ++l)
    for (const model::MixerPart<float>* head : heads_of(trained, l))
      hybrid = hybrid || head->mixer != heads_of(trained, 0).front()->mixer;
  json blocks = json::array();
  for (int l = 0; l < trained.depth(); ++l) {
    const auto norm = trained.views(trained.blocks[l]->input_norm);
    const Eigen::VectorXd gain = norm.empty()
                                     ? Eigen::VectorXd::Ones(trained.width)
                                     : Eigen::VectorXd(norm[0].row(0).transpose().cast<double>());
    const FeatureSpans spans = feature_spans(token_table, position_table, gain, norm.size() == 2);
    const std::vector<const model::MixerPart<float>*> head_parts = heads_of(trained, l);
    json heads = json::array();
    for (std::size_t k = 0; k < after[l].size(); ++k) {
      json head = {{"head", k + 1},
                   {"spectrum", spectrum_json(after[l][k])},
                   {"spectrum_at_init", spectrum_json(before[l][k])}};
      if (hybrid) head["mixer"] = std::string(head_parts[k]->mixer->name());
      if (head_parts[k]->mixer->distance_scores()) head["distance_form"] = {{"exact", true}};
      for (const auto& [key, samples] : {std::pair{"distance_form", &after[l][k]},
                                         std::pair{"distance_form_at_init", &before[l][k]}})
        if (!samples->gap.empty())
          head[key] = {{"gap", distribution_json(samples->gap)},
                       {"key_norm_variation", distribution_json(samples->key_variation)}};
      if (factors[l][k]) {
        const OmegaStructure omega =
            omega_structure(omega_of(*factors[l][k]), spans, trained.width, kOmegaParts);
        json parts = json::array();
        for (const OmegaPart& part : omega.parts)
          parts.push_back({{"sigma", part.sigma},
                           {"query", shares_json(part.query)},
                           {"key", shares_json(part.key)}});
        const Eigen::Index shown = std::min<Eigen::Index>(omega.singular_values.size(), 32);
        head["omega"] = {
            {"singular_values", std::vector<double>(omega.singular_values.data(),
                                                    omega.singular_values.data() + shown)},
            {"effective_rank", omega.profile.effective_rank},
            {"k90", omega.profile.k90},
            {"k99", omega.profile.k99},
            {"token_span", spans.token.cols()},
            {"position_span", spans.position.cols()},
            {"parts", parts}};
      }
      heads.push_back(head);
    }
    blocks.push_back({{"block", l + 1}, {"heads", heads}});
  }
  result["blocks"] = blocks;
  return result;
}

nlohmann::json analyze_heads(model::Model<float>& model, const data::TokenSplit& split, int windows,
                             const AnalysisConfig& thresholds,
                             const std::filesystem::path& folder) {
  windows = std::min(windows, split.count());
  BlockHeadWindows head_windows;
  task::TokenEvaluator evaluator(model, windows, model::LayerKernels::kComposite);
  evaluator.score(
      split, windows, [&](const task::TokenGraph& graph, const Tape<float>& tape, int, int slot) {
        add_head_window(head_windows, model, head_windows_of(model, [&](int l, int p) {
                          const model::MixerGraph& part = graph.model.blocks[l].parts[p];
                          auto sample_of = [&](Var var) -> const float* {
                            return var.valid() ? tape.value(var).sample(slot) : nullptr;
                          };
                          return HeadWindow{sample_of(part.M), sample_of(part.linear),
                                            sample_of(part.softmax), sample_of(part.input)};
                        }));
      });
  interrupt::throw_if_stop_requested("analysis");
  return block_heads(model, head_windows, thresholds, folder);
}

}  // namespace ufl::analysis
