// generate(): what every dataset kind shares (spec §1). Samples are reproducible from (spec,
// seed), clean signals have unit variance per element, the noise has standard deviation σ, and
// a spec that cannot be generated is rejected with one line naming its config key.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "data/dataset.hpp"
#include "data/registry.hpp"
#include "statistics.hpp"

namespace ufl::data {
namespace {

using test_support::spec_of;

const std::vector<std::string> kKinds = {"local", "global", "periodic", "lowrank", "induction"};
// Kinds whose input shows the whole clean signal (induction hides its blanks: induction_test).
const std::vector<std::string> kFullyShownKinds = {"local", "global", "periodic", "lowrank"};

// The message generate() throws for `spec`, or "" if it does not throw.
std::string rejection_of(const data::DatasetConfig& spec) {
  try {
    generate(spec, 1);
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "";
}

TEST_CASE("generate: sets have the configured shape, row-major n×d per sample") {
  for (const std::string& kind : kKinds) {
    CAPTURE(kind);
    data::DatasetConfig spec = spec_of(kind, 5, 3);
    spec.n = 8;
    spec.d = 3;
    spec.freqs = {1, 3};  // 1 ≤ f < n/2
    const Dataset dataset = generate(spec, 1);
    CHECK(dataset.seed == 1);
    CHECK(dataset.train.count == 5);
    CHECK(dataset.test.count == 3);
    CHECK(dataset.train.n == 8);
    CHECK(dataset.train.d == 3);
    CHECK(dataset.train.inputs.size() == 5 * 8 * 3);
    CHECK(dataset.train.targets.size() == 5 * 8 * 3);
    CHECK(dataset.test.targets.size() == 3 * 8 * 3);
    CHECK(dataset.train.partners.size() == (dataset.kind->has_partners ? 5u * 8 : 0u));
    CHECK(dataset.covariance.rows() == 8);
    CHECK(dataset.fixed_operator.cols() == 8);
    CHECK(dataset.kind->name == kind);
    CHECK(dataset.kind->has_partners == (kind == "global" || kind == "induction"));
  }
}

TEST_CASE("generate: the same spec and seed give the same arrays, bit for bit") {
  for (const std::string& kind : kKinds) {
    CAPTURE(kind);
    const data::DatasetConfig spec = spec_of(kind, 16, 16);
    const Dataset first = generate(spec, 7);
    const Dataset second = generate(spec, 7);
    CHECK(first.train.inputs == second.train.inputs);
    CHECK(first.train.targets == second.train.targets);
    CHECK(first.train.partners == second.train.partners);
    CHECK(first.test.inputs == second.test.inputs);
    CHECK(first.test.targets == second.test.targets);
    CHECK(first.covariance == second.covariance);
    CHECK(first.fixed_operator == second.fixed_operator);
    CHECK(first.lowrank_basis == second.lowrank_basis);
  }
}

TEST_CASE("generate: different seeds differ, and the train set differs from the test set") {
  for (const std::string& kind : kKinds) {
    CAPTURE(kind);
    const data::DatasetConfig spec = spec_of(kind, 16, 16);
    const Dataset seed_7 = generate(spec, 7);
    const Dataset seed_8 = generate(spec, 8);
    CHECK(seed_7.train.targets != seed_8.train.targets);
    CHECK(seed_7.train.inputs != seed_8.train.inputs);
    CHECK(seed_7.train.targets != seed_7.test.targets);
    CHECK(seed_7.train.inputs != seed_7.test.inputs);
  }
}

TEST_CASE("generate: every clean signal has unit variance per element on average") {
  for (const std::string& kind : kKinds) {
    CAPTURE(kind);
    const Dataset dataset = generate(spec_of(kind, 1, 2000), 3);
    // Exactly, in Γ: the mean of its diagonal.
    CHECK(dataset.covariance.trace() / dataset.spec.n == doctest::Approx(1.0).epsilon(1e-12));
    // Empirically: 2000 samples × 512 elements; the worst standard error (lowrank, whose
    // elements share a few coefficients) is about 0.005.
    CHECK(test_support::mean_square(dataset.test.targets) == doctest::Approx(1.0).epsilon(0.03));
  }
}

TEST_CASE("generate: the noise X − C has mean 0 and standard deviation σ") {
  for (const std::string& kind : kFullyShownKinds) {
    CAPTURE(kind);
    data::DatasetConfig spec = spec_of(kind, 500, 1);
    spec.noise = 0.7;
    const Dataset dataset = generate(spec, 5);
    double sum = 0.0, sum_of_squares = 0.0;
    const size_t element_count = dataset.train.inputs.size();
    for (size_t element = 0; element < element_count; ++element) {
      const double noise =
          static_cast<double>(dataset.train.inputs[element]) - dataset.train.targets[element];
      sum += noise;
      sum_of_squares += noise * noise;
    }
    const double mean = sum / element_count;
    const double deviation = std::sqrt(sum_of_squares / element_count - mean * mean);
    // 256 000 draws: the standard errors are 0.0014 (mean) and 0.1% of σ (deviation).
    CHECK(std::abs(mean) < 0.01);
    CHECK(deviation == doctest::Approx(0.7).epsilon(0.01));
  }
}

TEST_CASE("generate: with noise 0 the inputs are the clean targets") {
  for (const std::string& kind : kFullyShownKinds) {
    CAPTURE(kind);
    data::DatasetConfig spec = spec_of(kind, 4, 4);
    spec.noise = 0.0;
    const Dataset dataset = generate(spec, 2);
    CHECK(dataset.train.inputs == dataset.train.targets);
  }
}

TEST_CASE("generate: a spec that cannot be generated is rejected, naming its config key") {
  struct Case {
    std::string kind;
    std::function<void(data::DatasetConfig&)> break_spec;
    std::string key;
  };
  const std::vector<Case> cases = {
      {"local", [](auto& spec) { spec.kind = "fourier"; }, "dataset.kind"},
      {"local", [](auto& spec) { spec.n = 1; }, "dataset.n"},
      {"local", [](auto& spec) { spec.d = 0; }, "dataset.d"},
      {"local", [](auto& spec) { spec.noise = -0.1; }, "dataset.noise"},
      {"local", [](auto& spec) { spec.train_size = 0; }, "dataset.train_size"},
      {"local", [](auto& spec) { spec.test_size = 0; }, "dataset.test_size"},
      {"local", [](auto& spec) { spec.kernel_width = 0; }, "dataset.kernel_width"},
      {"global", [](auto& spec) { spec.n = 31; }, "dataset.n"},
      {"induction", [](auto& spec) { spec.n = 30; }, "dataset.n"},
      {"periodic", [](auto& spec) { spec.freqs = {}; }, "dataset.freqs"},
      {"periodic",
       [](auto& spec) {
         spec.freqs = {0, 5};
       },
       "dataset.freqs"},
      {"periodic",
       [](auto& spec) {
         spec.freqs = {2, 16};
       },
       "dataset.freqs"},  // f = n/2
      {"periodic",
       [](auto& spec) {
         spec.freqs = {2, 20};
       },
       "dataset.freqs"},
      {"periodic",
       [](auto& spec) {
         spec.freqs = {5, 2, 5};
       },
       "dataset.freqs"},
      {"periodic", [](auto& spec) { spec.amplitude_decay = 0.0; }, "dataset.amplitude_decay"},
      {"lowrank", [](auto& spec) { spec.rank = 0; }, "dataset.rank"},
      {"lowrank", [](auto& spec) { spec.rank = 33; }, "dataset.rank"},
      {"lowrank", [](auto& spec) { spec.singular_value_decay = -0.7; },
       "dataset.singular_value_decay"},
  };
  for (const Case& rejected : cases) {
    data::DatasetConfig spec = spec_of(rejected.kind, 4, 4);
    rejected.break_spec(spec);
    const std::string message = rejection_of(spec);
    CAPTURE(message);
    CHECK(message.rfind(rejected.key + ":", 0) == 0);  // starts with the key
    CHECK(message.find('\n') == std::string::npos);
  }
}

TEST_CASE("generate: the largest allowed values are accepted") {
  data::DatasetConfig periodic = spec_of("periodic", 2, 2);
  periodic.freqs = {1, 15};  // 1 ≤ f < n/2 = 16
  CHECK(rejection_of(periodic).empty());
  data::DatasetConfig lowrank = spec_of("lowrank", 2, 2);
  lowrank.rank = lowrank.n;
  CHECK(rejection_of(lowrank).empty());
}

TEST_CASE("generate: parameters of another kind are not checked, since they are not used") {
  data::DatasetConfig spec = spec_of("local", 2, 2);
  spec.freqs = {99};
  spec.rank = 0;
  spec.amplitude_decay = -1.0;
  CHECK(rejection_of(spec).empty());
}

}  // namespace
}  // namespace ufl::data
