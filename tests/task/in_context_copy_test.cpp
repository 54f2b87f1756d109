// In-context copying as a test (docs/transformer.md §4, §7): a small transformer trained on the
// `copy` kind for a few hundred steps copies — its loss on the copied letters falls below a tenth
// of the no-copy level ln(letters) — for every mixer that builds M from the input (attention, the
// universal layer), and stays near that level for the fixed operators, which cannot find a
// letter whose offset changes from line to line. The universal layer once failed this where
// attention did not (its gate started at ½ and the unnormalised S drowned the stream).
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
      "dataset": {"kind": "copy", "n": 24, "vocab": 4, "segment_min": 2, "segment_max": 6,
                  "train_size": 4096, "test_size": 128},
      "layer": {"mixer": ")" + mixer +
                                  R"(", "heads": 2},
      "model": {"block": "transformer", "depth": 2, "width": 32},
      "train": {"steps": 400, "batch_size": 16, "eval_every": 400, "lr": 0.003,
                "lr_final": 0.0003, "warmup_steps": 40, "weight_decay": 0.1, "clip": 1.0,
                "beta2": 0.99, "ortho_weight": 0}})",
                              "in-context copy test");
}

// The validation loss on the copied letters after training.
double copied_loss(const std::string& mixer) {
  const config::Config config = copy_config(mixer);
  const data::TokenDataset data = data::generate_tokens(config.dataset, config.dataset_seed);
  model::Model<float> model(config.dataset.n, 0, config.model, config.layer,
                            int(data.vocab.size()), true);
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

TEST_CASE("every mixer that reads its input learns to copy in context; fixed operators cannot") {
  const double no_copy = std::log(4.0);  // a uniform guess among the letters
  for (const model::Mixer<float>* mixer : model::mixers<float>()) {
    if (!mixer->has_causal_form()) continue;
    const std::string name(mixer->name());
    CAPTURE(name);
    const double loss = copied_loss(name);
    if (mixer->input_dependent())
      CHECK(loss < 0.1 * no_copy);
    else
      CHECK(loss > 0.5 * no_copy);
  }
}
