// The score trajectory: known operators in, known scores out; and as a probe of the trainer it
// records one row per evaluation without changing training by a single bit.
#include "analysis/trajectory.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <utility>

#include "../task/train_denoise.hpp"
#include "config/load.hpp"
#include "model/initialize.hpp"
#include "train/trainer.hpp"

using namespace ufl;

namespace {

config::Config small_config() {
  return config::parse_config(R"({"dataset": {"kind": "local", "n": 12, "d": 3,
                                  "train_size": 100, "test_size": 40},
                                  "train": {"steps": 60, "batch_size": 8, "eval_every": 25}})",
                              "trajectory test");
}

model::SampleOutputs outputs_with(const std::vector<float>& M) {
  return model::SampleOutputs{
      0,
      {model::BlockOutputs{
          {model::PartOutputs{M.data(), nullptr, nullptr, nullptr, nullptr, nullptr, nullptr}}}},
      nullptr};
}

}  // namespace

TEST_CASE("the identity for every sample: ι 0, τ ℓ φ 1, and γ is the layer's gate") {
  const config::Config config = small_config();
  const data::Dataset dataset = data::generate(config.dataset, config.seed);
  model::Model<float> model(12, 3, config.model, config.layer);
  model::initialize(model, config.seed);
  analysis::ScoreTrajectory trajectory(dataset, 4);
  CHECK(trajectory.sample_count() == 4);
  CHECK(trajectory.columns() ==
        std::vector<std::string>{"gamma", "iota", "tau", "ell", "phi", "alpha"});
  std::vector<float> identity(144, 0.0f);
  for (int i = 0; i < 12; ++i) identity[i * 12 + i] = 1.0f;
  trajectory.begin();
  for (int s = 0; s < 4; ++s) trajectory.observe(outputs_with(identity));
  const std::vector<double> row = trajectory.finish(model);
  REQUIRE(row.size() == 6);
  CHECK(row[0] == doctest::Approx(*std::as_const(model).part(0).mixer->gate(
                      std::as_const(model).mixer_parameters(0))));
  CHECK(row[1] == doctest::Approx(0.0).epsilon(1e-12));
  CHECK(row[2] == doctest::Approx(1.0));
  CHECK(row[3] == doctest::Approx(1.0));
  CHECK(row[4] == doctest::Approx(1.0));
  CHECK(row[5] >= 0.0);
  CHECK(row[5] <= 1.0 + 1e-12);

  // Different operators per sample are input dependent; begin() starts afresh.
  std::vector<float> swap(144, 0.0f);
  for (int i = 0; i < 12; ++i) swap[i * 12 + (11 - i)] = 1.0f;
  trajectory.begin();
  trajectory.observe(outputs_with(identity));
  trajectory.observe(outputs_with(swap));
  CHECK(trajectory.finish(model)[1] > 0.1);
}

TEST_CASE("as a trainer probe: one row per evaluation, and training unchanged to the bit") {
  const config::Config config = small_config();
  const data::Dataset dataset = data::generate(config.dataset, config.seed);
  auto train = [&](train::EvaluationProbe* probe) {
    model::Model<float> model(12, 3, config.model, config.layer);
    model::initialize(model, config.seed);
    train::TrainOptions options;
    options.quiet = true;
    options.probe = probe;
    train::TrainResult result =
        testing::train_denoise(config.train, config.seed, dataset, model, options);
    return std::make_pair(result, model.params.values);
  };
  analysis::ScoreTrajectory trajectory(dataset);
  const auto [probed, probed_params] = train(&trajectory);
  const auto [plain, plain_params] = train(nullptr);
  REQUIRE(probed.status == train::TrainStatus::kComplete);
  CHECK(std::memcmp(probed_params.data(), plain_params.data(),
                    plain_params.size() * sizeof(float)) == 0);
  CHECK(probed.final_test_metric == plain.final_test_metric);
  CHECK(plain.probe_rows.empty());
  REQUIRE(probed.probe_rows.size() == 3);  // steps 25, 50 and the last, 60
  CHECK(probed.probe_rows[0].step == 25);
  CHECK(probed.probe_rows[1].step == 50);
  CHECK(probed.probe_rows[2].step == 60);
  for (const train::ProbeRow& row : probed.probe_rows) {
    REQUIRE(row.values.size() == 6);
    for (double value : row.values) CHECK(std::isfinite(value));
  }
}
