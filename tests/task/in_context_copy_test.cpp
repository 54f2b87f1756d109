// In-context copying as a test (docs/universal_head.md §3): a small transformer trained on the
// `copy` kind for 500 steps copies — its loss on the copied letters falls below a quarter of the
// no-copy level ln(letters) — for every mixer that builds M from its input (attention, the
// universal layer, the distance mixer). The fixed operators are not held to a bound: with segments
// this short (2-4 letters), two blocks of them can partly find the copy from the separator's
// distance (lowrank reached 0.70 nats, linear 1.26, convolution 1.11 of ln 16 = 2.77 here).
#include <doctest/doctest.h>

#include <cmath>

#include "config/load.hpp"
#include "model/initialize.hpp"
#include "model/mixers/registry.hpp"
#include "task/next_token_session.hpp"
#include "train/trainer.hpp"

using namespace ufl;

namespace {

config::Config copy_config(const std::string& mixer) {
  return config::parse_config(R"({"task": {"kind": "next_token"},
      "dataset": {"kind": "copy", "n": 16, "vocab": 16, "segment_min": 2, "segment_max": 4,
                  "train_size": 4096, "test_size": 128},
      "layer": {"mixer": ")" + mixer +
                                  R"(", "heads": 2},
      "model": {"block": "transformer", "depth": 2, "width": 32},
      "train": {"steps": 500, "batch_size": 32, "eval_every": 500, "lr": 0.01,
                "lr_final": 0.001, "warmup_steps": 40, "weight_decay": 0.1, "clip": 1.0,
                "beta2": 0.99, "ortho_weight": 0}})",
                              "in-context copy test");
}

// The validation loss on the copied letters after training.
double copied_loss(const std::string& mixer) {
  const config::Config config = copy_config(mixer);
  const data::TokenDataset data = data::generate_tokens(config.dataset, config.dataset_seed);
  model::Model<float> model(config.dataset.n, 0, config.model, config.layer,
                            task::make_token_ends<float>(int(data.vocab.size())));
  model::initialize(model, config.seed);
  task::NextTokenSession session(data, model, config.train.batch_size);
  train::TrainOptions options;
  options.quiet = true;
  const train::TrainResult result =
      train::train_session(config.train, config.seed, session, model, options);
  REQUIRE(result.status == train::TrainStatus::kComplete);
  return result.curve.back().test_metric;
}

}  // namespace

TEST_CASE("every mixer that reads its input learns to copy in context within 500 steps") {
  const double no_copy = std::log(16.0);  // a uniform guess among the letters
  int checked = 0;
  for (const model::Mixer<float>* mixer : model::mixers<float>()) {
    if (!mixer->has_causal_form() || !mixer->input_dependent()) continue;
    const std::string name(mixer->name());
    CAPTURE(name);
    CHECK(copied_loss(name) < 0.25 * no_copy);
    ++checked;
  }
  // Which mixers these are is the registry's (each mixer's own test pins input_dependent());
  // the filter must leave some.
  CHECK(checked > 0);
}
