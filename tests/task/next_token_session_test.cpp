// The next_token task's training (docs/transformer.md): on a small hand-made token stream a run
// is bit-identical at 1 and 2 threads, a run interrupted at any step and resumed ends
// bit-identical to one never interrupted, and training lowers the validation loss; AdamW,
// warm-up and clipping are on, as in the transformer configs.
#include "task/next_token_session.hpp"

#include <doctest/doctest.h>
#include <omp.h>

#include <atomic>
#include <cmath>
#include <cstring>

#include "config/load.hpp"
#include "model/initialize.hpp"
#include "task/registry.hpp"
#include "train/trainer.hpp"

using namespace ufl;

namespace {

config::Config tiny_config(const std::string& mixer) {
  return config::parse_config(R"({"task": {"kind": "next_token"},
      "dataset": {"kind": "mqar", "n": 8, "pairs": 2},
      "layer": {"mixer": ")" + mixer +
                                  R"(", "heads": 2},
      "model": {"block": "transformer", "depth": 2, "width": 8},
      "train": {"steps": 60, "batch_size": 6, "eval_every": 20, "lr": 0.01, "lr_final": 0.001,
                "warmup_steps": 10, "weight_decay": 0.1, "clip": 1.0, "beta2": 0.99,
                "ortho_weight": 0}})",
                              "next_token session test");
}

// A periodic stream "abcabd…" over 5 symbols: train windows everywhere, 12 validation windows.
// `labelled`: positions labelled "fresh" and "copied" (every fifth-ish), both scored, as copy_text
// labels them.
data::TokenDataset tiny_data(int n, bool labelled = false) {
  data::TokenDataset data;
  data.vocab = {"a", "b", "c", "d", "e"};
  const std::vector<int> pattern = {0, 1, 2, 0, 1, 3, 4, 2};
  for (int i = 0; i < 400; ++i) data.train.stream.push_back(pattern[(i * 7 + i / 5) % 8]);
  for (int i = 0; i < 100; ++i) data.validation.stream.push_back(pattern[(i * 7 + i / 5) % 8]);
  data.train.n = data.validation.n = n;
  for (int s = 0; s + n < 400; ++s) data.train.starts.push_back(s);
  for (int s = 0; s < 12; ++s) data.validation.starts.push_back(s * 7);
  if (labelled)
    for (data::TokenSplit* split : {&data.train, &data.validation}) {
      split->labels = {{"fresh", 1.0f}, {"copied", 1.0f}};
      for (int s = 0; s < split->count(); ++s)
        for (int i = 0; i < n; ++i) split->position_labels.push_back((3 * s + 2 * i) % 5 == 0);
    }
  return data;
}

struct Outcome {
  train::TrainResult result;
  std::vector<float> params;
};

Outcome train_once(const std::string& mixer, int threads, int stop_after,
                   const train::TrainingState* resume, bool labelled = false) {
  const config::Config config = tiny_config(mixer);
  const data::TokenDataset data = tiny_data(config.dataset.n, labelled);
  model::Model<float> model(config.dataset.n, 0, config.model, config.layer,
                            task::make_token_ends<float>(int(data.vocab.size())));
  model::initialize(model, config.seed);
  task::NextTokenSession session(data, model, config.train.batch_size);
  std::atomic<bool> stop{false};
  train::TrainOptions options;
  options.quiet = true;
  options.stop_requested = &stop;
  options.resume_from = resume;
  options.after_step = [&](int step) {
    if (step == stop_after) stop = true;
  };
  const int previous = omp_get_max_threads();
  omp_set_num_threads(threads);
  Outcome outcome{train::train_session(config.train, config.seed, session, model, options),
                  model.params.values};
  omp_set_num_threads(previous);
  return outcome;
}

bool same_curve(const std::vector<train::LossPoint>& a, const std::vector<train::LossPoint>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k)
    if (a[k].loss != b[k].loss || a[k].learning_rate != b[k].learning_rate ||
        std::isnan(a[k].test_metric) != std::isnan(b[k].test_metric) ||
        (!std::isnan(a[k].test_metric) && a[k].test_metric != b[k].test_metric) ||
        a[k].held_out != b[k].held_out)
      return false;
  return true;
}

}  // namespace

TEST_CASE("a tiny next_token run is bit-identical at 1 and 2 threads, and learns") {
  for (const char* mixer : {"universal", "attention"}) {
    CAPTURE(mixer);
    const Outcome one = train_once(mixer, 1, -1, nullptr), two = train_once(mixer, 2, -1, nullptr);
    REQUIRE(one.result.status == train::TrainStatus::kComplete);
    CHECK(std::memcmp(one.params.data(), two.params.data(), one.params.size() * sizeof(float)) ==
          0);
    CHECK(same_curve(one.result.curve, two.result.curve));
    // The validation loss falls below log(5), a uniform guess over the 5 symbols.
    CHECK(one.result.final_test_metric < std::log(5.0));
  }
}

TEST_CASE("a next_token run interrupted and resumed ends bit-identical to one never interrupted") {
  const Outcome straight = train_once("universal", 1, -1, nullptr);
  for (int stop_after : {1, 10, 20, 59}) {  // within warm-up, its last step, an evaluation
    CAPTURE(stop_after);
    const Outcome first = train_once("universal", 1, stop_after, nullptr);
    REQUIRE(first.result.status == train::TrainStatus::kInterrupted);
    const Outcome resumed = train_once("universal", 2, -1, &first.result.state);
    REQUIRE(resumed.result.status == train::TrainStatus::kComplete);
    CHECK(std::memcmp(straight.params.data(), resumed.params.data(),
                      straight.params.size() * sizeof(float)) == 0);
    CHECK(same_curve(straight.result.curve, resumed.result.curve));
  }
}

TEST_CASE("the task's loss.csv columns are its own: nats, and bits beside them") {
  const task::TaskRecord& record = task::task("next_token");
  CHECK(record.loss_column == "train_loss");
  CHECK(record.metric_column == "val_loss");
  CHECK(record.bits);
  CHECK(task::task("denoise").loss_column == "mse");
}

TEST_CASE("labels with two or more scored kinds of position are reported apart; one is not") {
  data::TokenSplit split;
  CHECK(task::reported_labels(split).empty());  // no labels: every position, the total
  split.labels = {{"other", 0.0f}, {"copied", 1.0f}};
  CHECK(task::reported_labels(split).empty());  // copy: the one scored label is the total
  CHECK(task::held_out_columns(split).empty());
  split.labels = {{"fresh", 1.0f}, {"copied", 1.0f}};
  CHECK(task::reported_labels(split) == std::vector<int>{0, 1});
  CHECK(task::held_out_columns(split) ==
        std::vector<std::string>{"val_accuracy", "val_loss_fresh", "val_accuracy_fresh",
                                 "val_loss_copied", "val_accuracy_copied"});
}

TEST_CASE("each label's loss and accuracy pool its positions; their weighted mean is the total") {
  const Outcome trained = train_once("attention", 1, -1, nullptr, true);
  REQUIRE(trained.result.status == train::TrainStatus::kComplete);
  const config::Config config = tiny_config("attention");
  const data::TokenDataset data = tiny_data(config.dataset.n, true);
  model::Model<float> model(config.dataset.n, 0, config.model, config.layer,
                            task::make_token_ends<float>(int(data.vocab.size())));
  model.params.values = trained.params;
  task::TokenEvaluator evaluator(model, data.validation.count(), model::LayerKernels::kFused,
                                 task::reported_labels(data.validation));
  const task::TokenScores scores = evaluator.score(data.validation);
  REQUIRE(scores.labels.size() == 2);
  CHECK(scores.labels[0].name == "fresh");
  CHECK(scores.labels[1].name == "copied");
  // The labels' positions, counted from the data.
  std::int64_t copied = 0;
  for (std::uint8_t label : data.validation.position_labels) copied += label;
  const std::int64_t all = std::int64_t(data.validation.count()) * config.dataset.n;
  CHECK(scores.labels[1].positions == copied);
  CHECK(scores.labels[0].positions == all - copied);
  CHECK(copied > 0);
  // Every window has n positions of weight 1, so the total is the mean over all positions.
  const auto& fresh = scores.labels[0];
  const auto& copy = scores.labels[1];
  CHECK(scores.loss == doctest::Approx((fresh.loss * double(fresh.positions) +
                                        copy.loss * double(copy.positions)) /
                                       double(all))
                           .epsilon(1e-6));
  CHECK(scores.accuracy == doctest::Approx((fresh.accuracy * double(fresh.positions) +
                                            copy.accuracy * double(copy.positions)) /
                                           double(all))
                               .epsilon(1e-6));
  CHECK(fresh.loss != doctest::Approx(copy.loss));  // two different parts of the positions
  // The scores' held-out values are loss.csv's columns after val_loss, and the trained run's
  // last evaluation holds the same.
  const std::vector<double> values = scores.held_out_values();
  REQUIRE(values.size() == 5);
  CHECK(values[0] == scores.accuracy);
  CHECK(values[3] == copy.loss);
  CHECK(trained.result.curve.back().held_out == values);
  CHECK(trained.result.curve.back().test_metric == scores.loss);
  // Only evaluation steps hold them.
  for (const train::LossPoint& point : trained.result.curve)
    CHECK(point.held_out.size() == (std::isnan(point.test_metric) ? 0u : 5u));
}

TEST_CASE("labels of weight 1 change nothing of training; they survive a resume") {
  const Outcome plain = train_once("universal", 1, -1, nullptr);
  const Outcome labelled = train_once("universal", 1, -1, nullptr, true);
  CHECK(std::memcmp(plain.params.data(), labelled.params.data(),
                    plain.params.size() * sizeof(float)) == 0);
  for (std::size_t k = 0; k < plain.result.curve.size(); ++k) {
    CHECK(plain.result.curve[k].loss == labelled.result.curve[k].loss);
    CHECK(std::isnan(plain.result.curve[k].test_metric) ==
          std::isnan(labelled.result.curve[k].test_metric));
    if (!std::isnan(plain.result.curve[k].test_metric))
      CHECK(plain.result.curve[k].test_metric == labelled.result.curve[k].test_metric);
  }
  const Outcome first = train_once("universal", 1, 30, nullptr, true);
  REQUIRE(first.result.status == train::TrainStatus::kInterrupted);
  const Outcome resumed = train_once("universal", 1, -1, &first.result.state, true);
  CHECK(same_curve(labelled.result.curve, resumed.result.curve));
}
