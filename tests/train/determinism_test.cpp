// Same config and seed → bit-identical parameters and test MSE at 1 and 2 threads: every
// reduction over the batch runs in a fixed order (tape/parallel.hpp).
#include <doctest/doctest.h>
#include <omp.h>

#include <cstring>

#include "config/load.hpp"
#include "data/dataset.hpp"
#include "model/initialize.hpp"
#include "train/trainer.hpp"

using namespace ufl;

namespace {

struct Outcome {
  std::vector<float> params;
  double test_mse;
  std::vector<double> losses;
  std::vector<std::string> kernels;
};

Outcome train_with_threads(const std::string& kind, int threads, int n = 16) {
  const config::Config config =
      config::parse_config(R"({"dataset": {"kind": ")" + kind + R"(", "n": )" + std::to_string(n) +
                               R"(, "d": 4, "train_size": 256, "test_size": 64},
          "train": {"steps": 40, "batch_size": 16, "eval_every": 20}})",
                           "determinism");
  const data::Dataset dataset = data::generate(config.dataset, config.seed);
  model::Model<float> model(n, 4, config.model, config.layer);
  model::initialize(model, config.seed);
  const int previous = omp_get_max_threads();
  omp_set_num_threads(threads);
  train::TrainOptions options;
  options.quiet = true;
  const train::TrainResult result =
      train::train_model(config.train, config.seed, dataset, model, options);
  omp_set_num_threads(previous);
  Outcome outcome{model.params.values, result.final_test_mse, {}, result.kernels};
  for (const auto& point : result.curve) outcome.losses.push_back(point.loss);
  return outcome;
}

}  // namespace

TEST_CASE("training is bit-identical at 1 and 2 threads, with either universal kernel") {
  struct Case {
    const char* kind;
    int n;
    const char* kernel;
  };
  for (const Case& c : {Case{"local", 16, "dense"}, Case{"global", 16, "dense"},
                        Case{"local", 64, "structured"}, Case{"global", 64, "structured"}}) {
    CAPTURE(c.kind);
    CAPTURE(c.n);
    const Outcome one = train_with_threads(c.kind, 1, c.n),
                  two = train_with_threads(c.kind, 2, c.n);
    CHECK(one.kernels == std::vector<std::string>{c.kernel});
    REQUIRE(one.params.size() == two.params.size());
    CHECK(std::memcmp(one.params.data(), two.params.data(), one.params.size() * sizeof(float)) ==
          0);
    CHECK(one.test_mse == two.test_mse);
    CHECK(one.losses == two.losses);
    // and the run really trained: the loss moved
    CHECK(one.losses.back() < one.losses.front());
  }
}
