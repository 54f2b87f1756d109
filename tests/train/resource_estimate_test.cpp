// The run's estimate: memory in the parts that really grow with each key, the keys to lower
// named, and a time that scales with the work.
#include "train/resource_estimate.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "config/load.hpp"
#include "data/tokens.hpp"
#include "model/model.hpp"
#include "task/next_token_session.hpp"

using namespace ufl;

namespace {

train::ResourceEstimate estimate_of(const std::string& json, int threads = 1) {
  const config::Config config = config::parse_config(json, "estimate test");
  return train::estimate_resources(config.dataset, config.layer, config.model, config.train,
                                   threads);
}

}  // namespace

TEST_CASE("a Section 8 run needs little; n = 100000 needs more than any machine has") {
  const train::ResourceEstimate small = estimate_of(R"({"dataset": {"kind": "local"}})");
  CHECK(small.peak_bytes > 40e6);  // the process itself
  CHECK(small.peak_bytes < 2e9);
  const train::ResourceEstimate huge =
      estimate_of(R"({"dataset": {"kind": "local", "n": 100000}})");
  CHECK(huge.peak_bytes > 1e13);
  // The training tape grows as batch × n²: it leads, and its keys are the ones to lower.
  CHECK(huge.parts.front().name == "training tape");
  CHECK(huge.keys_to_lower().find("train.batch_size") != std::string::npos);
  CHECK(huge.keys_to_lower().find("dataset.n") != std::string::npos);
  CHECK(huge.memory_text().find("train.batch_size = 64") != std::string::npos);
  // The process's share is in the total, not in the list.
  CHECK(small.memory_text().find(":, ") == std::string::npos);
  CHECK(small.memory_text().find("process") == std::string::npos);
}

TEST_CASE("a huge training set is charged to the dataset and names its keys") {
  const train::ResourceEstimate estimate =
      estimate_of(R"({"dataset": {"kind": "local", "train_size": 1000000000}})");
  CHECK(estimate.parts.front().name == "dataset");
  // 1e9 samples × n 32 × d 16 × 2 arrays × 4 bytes.
  CHECK(estimate.parts.front().bytes >= 4.096e12);
  CHECK(estimate.keys_to_lower().find("dataset.train_size") != std::string::npos);
}

TEST_CASE("the parts add up, and more batch means more memory and more time per step") {
  const train::ResourceEstimate base = estimate_of(R"({"dataset": {"kind": "global"}})");
  double sum = 0;
  for (const train::MemoryPart& part : base.parts) sum += part.bytes;
  CHECK(sum == doctest::Approx(base.peak_bytes));
  const train::ResourceEstimate bigger =
      estimate_of(R"({"dataset": {"kind": "global"}, "train": {"batch_size": 256}})");
  CHECK(bigger.peak_bytes > base.peak_bytes);
  CHECK(bigger.seconds_per_step > base.seconds_per_step);
  CHECK(base.total_seconds == doctest::Approx(base.seconds_per_step * 6000));
  // Two threads share a batch of 64: faster, not slower.
  CHECK(estimate_of(R"({"dataset": {"kind": "global"}})", 2).seconds_per_step <
        base.seconds_per_step);
}

TEST_CASE("format_seconds") {
  CHECK(train::format_seconds(0) == "0s");
  CHECK(train::format_seconds(0.00025) == "250µs");
  CHECK(train::format_seconds(0.85) == "850ms");
  CHECK(train::format_seconds(12.34) == "12.3s");
  CHECK(train::format_seconds(245) == "4m05s");
  CHECK(train::format_seconds(5100) == "1h25m");
}

TEST_CASE("a stack's width and depth are counted: model.width = 100000 needs W_v of D² per layer") {
  const train::ResourceEstimate narrow = estimate_of(R"({"dataset": {"kind": "local"}})");
  const train::ResourceEstimate wide =
      estimate_of(R"({"dataset": {"kind": "local"}, "model": {"width": 100000}})");
  // W_v alone is 10¹⁰ floats, and Adam keeps ten copies' worth.
  CHECK(wide.peak_bytes > 1e11);
  CHECK(wide.keys_to_lower().find("model.width") != std::string::npos);
  CHECK(wide.memory_text().find("model.width = 100000") != std::string::npos);
  const train::ResourceEstimate deep = estimate_of(
      R"({"dataset": {"kind": "local"}, "model": {"width": 2000, "depth": 8, "residual": true}})");
  const train::ResourceEstimate shallow = estimate_of(
      R"({"dataset": {"kind": "local"}, "model": {"width": 2000, "depth": 1, "residual": true}})");
  CHECK(deep.peak_bytes > 4 * shallow.peak_bytes);
  CHECK(deep.keys_to_lower().find("model.depth") != std::string::npos);
  CHECK(narrow.peak_bytes < shallow.peak_bytes);
}

TEST_CASE("a transformer's training tape is estimated within 10% of the arena its session plans") {
  // layer.mixer as JSON: one mixer, or a hybrid's list with one per head.
  for (const char* mixer : {R"("universal")", R"("attention")", R"("linear")",
                            R"(["universal", "attention", "convolution", "linear"])"}) {
    CAPTURE(mixer);
    const config::Config config =
        config::parse_config(std::string(R"({"task": {"kind": "next_token"},
                        "dataset": {"kind": "mqar", "n": 64, "pairs": 8, "vocab": 64},
                        "model": {"block": "transformer", "width": 64, "depth": 2},
                        "layer": {"mixer": )") +
                                 mixer + R"(, "heads": 4}, "train": {"batch_size": 12}})",
                             "estimate test");
    const data::TokenDataset data = data::generate_tokens(config.dataset, config.dataset_seed);
    model::Model<float> model(config.dataset.n, 0, config.model, config.layer,
                              task::make_token_ends<float>(int(data.vocab.size())));
    task::NextTokenSession session(data, model, config.train.batch_size);
    const train::ResourceEstimate estimate =
        train::estimate_resources(config.dataset, config.layer, config.model, config.train, 1);
    double tape = 0;
    for (const train::MemoryPart& part : estimate.parts)
      if (part.name == "training tape") tape = part.bytes;
    // The arena also holds what the vocabulary part counts for training: E's gradient slots
    // (twice) and the logits' gradient per sample group, and the probabilities per sample.
    const double vocab = double(data.vocab.size()), width = 64, n = 64, batch = 12;
    const double groups = std::ceil(batch / std::ceil(batch / kMaxSampleGroups));
    tape += (groups * (2 * vocab * width + n * vocab) + batch * n * vocab) * sizeof(float);
    CHECK(tape == doctest::Approx(double(session.tape().arena_bytes())).epsilon(0.10));
  }
}

TEST_CASE("a hybrid's estimate counts each head as its own mixer") {
  auto estimate_with = [](const std::string& mixer) {
    return estimate_of(R"({"task": {"kind": "next_token"},
                           "dataset": {"kind": "mqar", "n": 64, "pairs": 8, "vocab": 64},
                           "model": {"block": "transformer", "width": 64, "depth": 2},
                           "layer": {"mixer": )" +
                       mixer + R"(, "heads": 4}})");
  };
  auto weights = [](const train::ResourceEstimate& estimate) {
    for (const train::MemoryPart& part : estimate.parts)
      if (part.name == "parameters and AdamW") return part.bytes;
    return 0.0;
  };
  const train::ResourceEstimate attention = estimate_with(R"("attention")");
  const train::ResourceEstimate convolution = estimate_with(R"("convolution")");
  const train::ResourceEstimate hybrid =
      estimate_with(R"(["attention", "attention", "convolution", "convolution"])");
  // A list naming one mixer for every head is that mixer's estimate exactly.
  const train::ResourceEstimate listed =
      estimate_with(R"(["attention", "attention", "attention", "attention"])");
  CHECK(listed.peak_bytes == attention.peak_bytes);
  CHECK(listed.flops_per_step == attention.flops_per_step);
  // Only the heads differ: two of each kind cost the mean of four of either.
  CHECK(2 * weights(hybrid) == doctest::Approx(weights(attention) + weights(convolution)));
  CHECK(2 * hybrid.flops_per_step ==
        doctest::Approx(attention.flops_per_step + convolution.flops_per_step));
  CHECK(convolution.peak_bytes < hybrid.peak_bytes);
  CHECK(hybrid.peak_bytes < attention.peak_bytes);
  // Two heads have scores: layer.rank drives the parameters, as for attention.
  auto rank_drives_weights = [](const train::ResourceEstimate& estimate) {
    for (const train::MemoryPart& part : estimate.parts)
      if (part.name == "parameters and AdamW")
        return std::find(part.keys.begin(), part.keys.end(), "layer.rank") != part.keys.end();
    return false;
  };
  CHECK(rank_drives_weights(hybrid));
  CHECK(rank_drives_weights(attention));
  CHECK_FALSE(rank_drives_weights(convolution));
}

namespace {

// The mqar run measured with /usr/bin/time -v on the 2-core machine (docs/running.md): n 32,
// width 64, depth 2, batch 8, 512 training and 64 test sequences, 5 steps, one thread.
std::string mqar_with_vocab(double vocab) {
  return R"({"task": {"kind": "next_token"}, "dataset": {"kind": "mqar", "n": 32, "vocab": )" +
         std::to_string(std::int64_t(vocab)) +
         R"(, "pairs": 8, "train_size": 512, "test_size": 64}, "layer": {"mixer": "universal",
         "heads": 1}, "model": {"block": "transformer", "depth": 2, "width": 64}, "train":
         {"steps": 5, "batch_size": 8, "warmup_steps": 1, "eval_every": 5, "ortho_weight": 0}})";
}

}  // namespace

TEST_CASE("the vocabulary is counted: embedding, logits and their gradients, near the peaks") {
  // Measured on the quiet 2-core machine (docs/running.md) at three vocabulary sizes: the peak
  // resident memory (bytes), the seconds per step and the whole run's wall time.
  struct Measured {
    double vocab, peak, step_seconds, run_seconds;
  };
  const std::vector<Measured> measured = {
      {2e4, 227e6, 0.081, 2.2}, {2e5, 2.04e9, 0.87, 13.0}, {1e6, 10.13e9, 4.5, 82.0}};
  for (const auto& [vocab, peak, step_seconds, run_seconds] : measured) {
    CAPTURE(vocab);
    const train::ResourceEstimate estimate = estimate_of(mqar_with_vocab(vocab));
    CHECK(estimate.peak_bytes > 0.75 * peak);
    CHECK(estimate.peak_bytes < 1.25 * peak);
    CHECK(estimate.seconds_per_step > 0.5 * step_seconds);
    CHECK(estimate.seconds_per_step < 2 * step_seconds);
    CHECK(estimate.total_seconds > 0.5 * run_seconds);
    CHECK(estimate.total_seconds < 2 * run_seconds);
    // The part of its own: 100 bytes a token, 12 copies of E (vocab × width 64), two gradient
    // slots of E and an n × vocab temporary in each of the 8 groups (one sample each), the batch's
    // probabilities (8 × n 32 × vocab) and one evaluation window's (n × vocab), in floats.
    const auto part =
        std::find_if(estimate.parts.begin(), estimate.parts.end(),
                     [](const train::MemoryPart& p) { return p.name == "vocabulary"; });
    REQUIRE(part != estimate.parts.end());
    const double floats =
        12 * vocab * 64 + 8 * (2 * vocab * 64 + 32 * vocab) + 8 * 32 * vocab + 32 * vocab;
    CHECK(part->bytes == doctest::Approx(100 * vocab + 4 * floats));
  }
}

TEST_CASE("a vocabulary too large for memory is blamed on dataset.vocab") {
  const train::ResourceEstimate estimate = estimate_of(mqar_with_vocab(1e9));
  CHECK(estimate.parts.front().name == "vocabulary");
  CHECK(estimate.keys_to_lower() == "dataset.vocab");
  CHECK(estimate.memory_text().find("a vocabulary of 1000000000 (dataset.vocab)") !=
        std::string::npos);
}
