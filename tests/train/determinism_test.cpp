// Same config and seed → bit-identical parameters and test MSE at 1 and 2 threads: every
// reduction over the batch runs in a fixed order (tape/parallel.hpp).
#include <doctest/doctest.h>
#include <omp.h>

#include <cstring>

#include "../task/train_denoise.hpp"
#include "config/load.hpp"
#include "data/dataset.hpp"
#include "model/initialize.hpp"
#include "train/trainer.hpp"

using namespace ufl;

namespace {

struct Outcome {
  std::vector<float> initial_params, params;
  double test_mse;
  std::vector<double> losses;
  std::vector<std::string> kernels;
};

// `n` positions; `stack`: the model's JSON section ({} for the single layer).
Outcome train_with_threads(const std::string& kind, int threads, int n = 16,
                           const std::string& stack = "{}") {
  const config::Config config =
      config::parse_config(R"({"dataset": {"kind": ")" + kind + R"(", "n": )" + std::to_string(n) +
                               R"(, "d": 4, "train_size": 256, "test_size": 64},
          "train": {"steps": 40, "batch_size": 16, "eval_every": 20}, "model": )" +
                               stack + "}",
                           "determinism");
  const data::Dataset dataset = data::generate(config.dataset, config.seed);
  model::Model<float> model(n, 4, config.model, config.layer);
  model::initialize(model, config.seed);
  const std::vector<float> initial = model.params.values;
  const int previous = omp_get_max_threads();
  omp_set_num_threads(threads);
  train::TrainOptions options;
  options.quiet = true;
  const train::TrainResult result =
      testing::train_denoise(config.train, config.seed, dataset, model, options);
  omp_set_num_threads(previous);
  Outcome outcome{initial, model.params.values, result.final_test_metric, {}, result.kernels};
  for (const auto& point : result.curve) outcome.losses.push_back(point.loss);
  return outcome;
}

}  // namespace

TEST_CASE("training is bit-identical at 1 and 2 threads, with either universal kernel, in stacks") {
  const std::string deep = R"({"depth": 3, "width": 8, "residual": true})";
  const std::string plain = R"({"depth": 2})";
  struct Case {
    const char* kind;
    int n;
    std::string stack;
    std::vector<std::string> kernels;
  };
  const std::vector<Case> cases = {{"local", 16, "{}", {"dense"}},
                                   {"global", 16, "{}", {"dense"}},
                                   {"local", 64, "{}", {"structured"}},
                                   {"global", 64, "{}", {"structured"}},
                                   {"induction", 16, deep, {"dense", "dense", "dense"}},
                                   {"global", 16, plain, {"dense", "dense"}}};
  for (const Case& c : cases) {
    CAPTURE(c.kind);
    CAPTURE(c.n);
    CAPTURE(c.stack);
    const Outcome one = train_with_threads(c.kind, 1, c.n, c.stack),
                  two = train_with_threads(c.kind, 2, c.n, c.stack);
    CHECK(one.kernels == c.kernels);
    REQUIRE(one.params.size() == two.params.size());
    CHECK(std::memcmp(one.params.data(), two.params.data(), one.params.size() * sizeof(float)) ==
          0);
    CHECK(one.test_mse == two.test_mse);
    CHECK(one.losses == two.losses);
    // and the run really trained: every layer's parameters moved (a residual stack's loss can
    // sit still for 40 steps while its branches, starting silent, begin to grow)
    CHECK(one.params != one.initial_params);
  }
}
