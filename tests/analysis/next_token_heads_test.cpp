// heads.json's measures on a small untrained model (analysis/next_token_heads.hpp,
// docs/head_structure.md §2): the model compared with itself has the same spectra before and after;
// the truncation test tries ranks 1, 2, 4 below n = 8, with the full model's loss the plain
// evaluation's and rank 1 changing it; every head with scores gets a distance-form gap and Ω's
// parts, whose shares are fractions of a unit vector; a distance head's gap is exact (0) by
// construction. The heads' measures of metrics.json (analyze_heads): a hand-set universal head's
// branch shares in closed form (docs/universal_head.md §2), and no shares for a head without a
// learned gate.
#include "analysis/next_token_heads.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>

#include "config/load.hpp"
#include "model/initialize.hpp"
#include "model/mixers/registry.hpp"
#include "model/mixers/universal.hpp"
#include "task/next_token_session.hpp"

using namespace ufl;

namespace {

config::Config small_config(const std::string& mixer) {
  return config::parse_config(R"({"task": {"kind": "next_token"},
      "dataset": {"kind": "mqar", "n": 8, "pairs": 2, "train_size": 64, "test_size": 16},
      "layer": {"mixer": ")" + mixer +
                                  R"(", "heads": 2},
      "model": {"block": "transformer", "depth": 2, "width": 8}})",
                              "next_token heads test");
}

}  // namespace

TEST_CASE("truncation ranks are the powers of two below n") {
  CHECK(analysis::truncation_ranks(8) == std::vector<int>{1, 2, 4});
  CHECK(analysis::truncation_ranks(64) == std::vector<int>{1, 2, 4, 8, 16, 32});
}

TEST_CASE("heads.json of an untrained model, for the mixers with scores and one without") {
  for (const std::string mixer : {"universal", "attention", "distance", "lowrank"}) {
    CAPTURE(mixer);
    const config::Config config = small_config(mixer);
    const data::TokenDataset data = data::generate_tokens(config.dataset, config.dataset_seed);
    model::Model<float> model(config.dataset.n, 0, config.model, config.layer,
                              task::make_token_ends<float>(int(data.vocab.size())));
    model::initialize(model, config.seed);
    model::Model<float> initial = model;
    const nlohmann::json heads = analysis::head_structure(model, initial, data.validation, 16);
    CHECK(heads["windows"] == 16);
    CHECK(heads["uniform_causal_average"]["k99"].get<int>() > 1);
    const auto truncation = heads["truncation"];
    REQUIRE(truncation.size() == 3);
    task::TokenEvaluator evaluator(model, 16);
    const double full = evaluator.score(data.validation, 16).loss;
    CHECK(heads["full_loss"].get<double>() == doctest::Approx(full).epsilon(1e-5));
    CHECK(std::isfinite(truncation[0]["loss"].get<double>()));
    CHECK(truncation[0]["loss"].get<double>() != heads["full_loss"].get<double>());
    REQUIRE(heads["blocks"].size() == 2);
    for (const auto& block : heads["blocks"]) {
      REQUIRE(block["heads"].size() == 2);
      for (const auto& head : block["heads"]) {
        CHECK(head["spectrum"] == head["spectrum_at_init"]);
        CHECK(head["spectrum"]["k99"]["median"].get<double>() >= 1);
        const bool scores = mixer != "lowrank";
        CHECK(head.contains("distance_form") == scores);
        CHECK(head.contains("omega") == scores);
        if (!scores) continue;
        if (mixer == "distance") {  // its scores are the distance form by construction
          CHECK(head["distance_form"] == nlohmann::json{{"exact", true}});
          CHECK_FALSE(head.contains("distance_form_at_init"));
        } else {
          CHECK(head["distance_form"] == head["distance_form_at_init"]);
          CHECK(head["distance_form"]["gap"]["median"].get<double>() >= 0);
        }
        for (const auto& part : head["omega"]["parts"])
          for (const char* side : {"query", "key"})
            for (const char* read : {"token", "position", "bias"}) {
              const double share = part[side][read].get<double>();
              CHECK(share >= -1e-12);
              CHECK(share <= 1 + 1e-9);
            }
      }
    }
  }
}

namespace {

// Sets every head of `model` (universal heads) to the constant scores S_ij = c and the gate γ:
// U = 1·e_1ᵀ and V = ±1·e_1ᵀ from the bias rows alone, σ_1 = |c|·√r, so that S = U·Σ·Vᵀ/√r = c
// whatever the input. Causal, A = D·(L⊙S) is then c·P with P = softmax(S) the uniform causal
// average, and M = ((1−γ)·c + γ)·P.
void set_constant_scores(model::Model<float>& model, double c, double gamma) {
  using Universal = model::UniversalMixer<float>;
  for (int l = 0; l < model.depth(); ++l)
    for (const model::MixerPart<float>& head : model.blocks[l]->parts) {
      const model::LayerShape& shape = head.shape;
      const int bias_row = shape.d + shape.n;
      model::ParameterViews<float> params = model.views(head.mixer_slices);
      params[Universal::kA].setZero();
      params[Universal::kB].setZero();
      params[Universal::kA](bias_row, 0) = 1;
      params[Universal::kB](bias_row, 0) = c > 0 ? 1 : -1;
      params[Universal::kS].setZero();
      params[Universal::kS](0, 0) = float(std::log(std::expm1(std::abs(c) * std::sqrt(shape.r))));
      params[Universal::kG](0, 0) = float(std::log(gamma / (1 - gamma)));
    }
}

// A fresh folder under the system's temporary one, for the heads' M̄.
std::filesystem::path fresh_folder(const std::string& name) {
  const std::filesystem::path folder = std::filesystem::temp_directory_path() / name;
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  return folder;
}

}  // namespace

TEST_CASE("a hand-set universal head's branch shares, from the windows recorded op by op") {
  // γ = 0.8 and S = ±4: (1−γ)·A = ±0.8·P against γ·P = 0.8·P, so each branch carries half of the
  // output and of the operator for any values; with S = 4 the two add (‖sum‖² = 2× the parts'),
  // with S = −4 they cancel (M = 0).
  const config::Config config = small_config("universal");
  const data::TokenDataset data = data::generate_tokens(config.dataset, config.dataset_seed);
  for (const double c : {4.0, -4.0}) {
    CAPTURE(c);
    model::Model<float> model(config.dataset.n, 0, config.model, config.layer,
                              task::make_token_ends<float>(int(data.vocab.size())));
    model::initialize(model, config.seed);
    set_constant_scores(model, c, 0.8);
    const nlohmann::json layers = analysis::analyze_heads(
        model, data.validation, 16, analysis::AnalysisConfig{}, fresh_folder("ufl_branch_test"));
    REQUIRE(layers.size() == 2);
    for (const auto& block : layers)
      for (const auto& head : block["heads"]) {
        CHECK(head["gamma"].get<double>() == doctest::Approx(0.8));
        const auto& branches = head["branches"];
        CHECK(branches["windows"] == 16);
        for (const char* part : {"output", "operator"}) {
          CAPTURE(part);
          CHECK(branches[part]["linear_share"].get<double>() == doctest::Approx(0.5));
          CHECK(branches[part]["sum_to_parts"].get<double>() ==
                doctest::Approx(c > 0 ? 2.0 : 0.0).scale(1.0));
        }
      }
  }
}

TEST_CASE("branch shares for the heads with a learned gate and a softmax branch, none for others") {
  for (const model::Mixer<float>* mixer : model::mixers<float>()) {
    if (!mixer->has_causal_form()) continue;  // next-token heads are causal
    CAPTURE(mixer->name());
    const config::Config config = small_config(std::string(mixer->name()));
    const data::TokenDataset data = data::generate_tokens(config.dataset, config.dataset_seed);
    model::Model<float> model(config.dataset.n, 0, config.model, config.layer,
                              task::make_token_ends<float>(int(data.vocab.size())));
    model::initialize(model, config.seed);
    const nlohmann::json layers =
        analysis::analyze_heads(model, data.validation, 16, analysis::AnalysisConfig{},
                                fresh_folder("ufl_branch_test_" + std::string(mixer->name())));
    const bool gated = mixer->learned_gate() && mixer->softmax_branch();
    for (const auto& block : layers)
      for (const auto& head : block["heads"]) {
        REQUIRE(head.contains("branches") == gated);
        if (!gated) continue;
        CHECK(head.contains("gamma"));
        for (const char* part : {"output", "operator"}) {
          const double share = head["branches"][part]["linear_share"].get<double>();
          const double sum = head["branches"][part]["sum_to_parts"].get<double>();
          CHECK(share >= 0);
          CHECK(share <= 1);
          CHECK(sum >= 0);
          CHECK(sum <= 2);
        }
      }
  }
}
