// heads.json's measures on a small untrained model (analysis/next_token_heads.hpp,
// docs/head_structure.md §2): the model compared with itself has the same spectra before and after;
// the truncation test tries ranks 1, 2, 4 below n = 8, with the full model's loss the plain
// evaluation's and rank 1 changing it; every head with scores gets a distance-form gap and Ω's
// parts, whose shares are fractions of a unit vector; a distance head's gap is exact (0) by
// construction.
#include "analysis/next_token_heads.hpp"

#include <doctest/doctest.h>

#include <cmath>

#include "config/load.hpp"
#include "model/initialize.hpp"
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
