// Checkpoints: an interrupted and resumed run ends bit-identical to one never interrupted, and
// a damaged checkpoint file is refused with a clear error.
#include "train/checkpoint.hpp"

#include <doctest/doctest.h>

#include <cstring>

#include "../task/train_denoise.hpp"
#include "config/load.hpp"
#include "io/content_hash.hpp"
#include "io/io_error.hpp"
#include "model/initialize.hpp"
#include "train/trainer.hpp"

using namespace ufl;

namespace {

// `model` is the stack's JSON section ({} for the single layer).
config::Config small_config(const std::string& kind, const std::string& model = "{}") {
  return config::parse_config(R"({"dataset": {"kind": ")" + kind +
                                  R"(", "n": 12, "d": 3, "train_size": 100, "test_size": 40},
                                  "train": {"steps": 90, "batch_size": 8, "eval_every": 25},
                                  "model": )" +
                                  model + "}",
                              "checkpoint test");
}

train::TrainResult run(const config::Config& config, const data::Dataset& dataset,
                       model::Model<float>& model, int stop_after,
                       const train::TrainingState* resume) {
  std::atomic<bool> stop{false};
  train::TrainOptions options;
  options.quiet = true;
  options.stop_requested = &stop;
  options.resume_from = resume;
  options.after_step = [&](int step) {
    if (step == stop_after) stop = true;
  };
  return testing::train_denoise(config.train, config.seed, dataset, model, options);
}

}  // namespace

TEST_CASE("a run interrupted at any step and resumed ends bit-identical to an uninterrupted run") {
  const std::string deep = R"({"depth": 3, "width": 6, "residual": true})";
  for (const auto& [kind, model_section] :
       {std::pair{"lowrank", "{}"}, {"global", "{}"}, {"induction", deep.c_str()}}) {
    const config::Config config = small_config(kind, model_section);
    const data::Dataset dataset = data::generate(config.dataset, config.seed);
    auto fresh = [&] { return model::Model<float>(12, 3, config.model, config.layer); };
    model::Model<float> straight = fresh();
    model::initialize(straight, config.seed);
    const train::TrainResult reference = run(config, dataset, straight, -1, nullptr);
    REQUIRE(reference.status == train::TrainStatus::kComplete);

    for (int stop_after : {1, 13, 25, 89}) {  // 13 crosses an epoch boundary (100/8 batches)
      CAPTURE(kind);
      CAPTURE(stop_after);
      model::Model<float> model = fresh();
      model::initialize(model, config.seed);
      const train::TrainResult first = run(config, dataset, model, stop_after, nullptr);
      REQUIRE(first.status == train::TrainStatus::kInterrupted);
      CHECK(first.steps_done == stop_after);
      // Through the file format, as the CLI does.
      const train::TrainingState saved =
          train::decode_checkpoint(train::encode_checkpoint(first.state), "memory");
      model::Model<float> resumed = fresh();  // everything comes from the checkpoint
      const train::TrainResult second = run(config, dataset, resumed, -1, &saved);
      REQUIRE(second.status == train::TrainStatus::kComplete);
      CHECK(std::memcmp(resumed.params.values.data(), straight.params.values.data(),
                        straight.params.values.size() * sizeof(float)) == 0);
      CHECK(second.final_test_metric == reference.final_test_metric);
      REQUIRE(second.curve.size() == reference.curve.size());
      for (std::size_t k = 0; k < reference.curve.size(); ++k) {
        CHECK(second.curve[k].loss == reference.curve[k].loss);
        CHECK(std::isnan(second.curve[k].test_metric) ==
              std::isnan(reference.curve[k].test_metric));
      }
    }
  }
}

TEST_CASE("a damaged checkpoint is refused with an error naming the file") {
  const config::Config config = small_config("local");
  const data::Dataset dataset = data::generate(config.dataset, config.seed);
  model::Model<float> model(12, 3, config.model, config.layer);
  model::initialize(model, config.seed);
  const std::string bytes = encode_checkpoint(run(config, dataset, model, 5, nullptr).state);
  auto refused = [](const std::string& damaged) {
    try {
      train::decode_checkpoint(damaged, "run/checkpoint.bin");
    } catch (const io::IoError& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  CHECK(refused(bytes) == "accepted");
  CHECK(refused("").find("run/checkpoint.bin: corrupt checkpoint (not a ufl checkpoint)") == 0);
  CHECK(refused(bytes.substr(0, bytes.size() / 2)).find("truncated") != std::string::npos);
  CHECK(refused(bytes + "x").find("truncated or padded") != std::string::npos);
  std::string flipped = bytes;
  flipped[bytes.size() / 2] ^= 0x10;
  CHECK(refused(flipped).find("checksum mismatch") != std::string::npos);
  std::string other_version = bytes;
  other_version[8] = 7;
  CHECK(refused(other_version).find("format version 7") != std::string::npos);
  for (std::size_t cut = 0; cut < bytes.size(); cut += 97)
    CHECK(refused(bytes.substr(0, cut)) != "accepted");
}

TEST_CASE("a NaN stops training with the step and the tensor named") {
  config::Config config = small_config("local");
  config.train.lr = 1e30;  // the first update overflows the parameters
  const data::Dataset dataset = data::generate(config.dataset, config.seed);
  model::Model<float> model(12, 3, config.model, config.layer);
  model::initialize(model, config.seed);
  const train::TrainResult result = run(config, dataset, model, -1, nullptr);
  CHECK(result.status == train::TrainStatus::kDiverged);
  CHECK(result.message.find("training diverged at step") == 0);
  CHECK(result.message.find("lower train.lr") != std::string::npos);
  CHECK_FALSE(result.curve.empty());
}

TEST_CASE("train.checkpoint_every hands out the state every k steps, never after the last") {
  const config::Config config = small_config("lowrank");
  const data::Dataset dataset = data::generate(config.dataset, config.seed);
  model::Model<float> model(12, 3, config.model, config.layer);
  model::initialize(model, config.seed);
  train::TrainConfig settings = config.train;
  settings.checkpoint_every = 30;  // of 90 steps: after 30 and 60
  std::vector<train::TrainingState> saved;
  train::TrainOptions options;
  options.quiet = true;
  options.on_checkpoint = [&](const train::TrainingState& state) { saved.push_back(state); };
  const train::TrainResult result =
      testing::train_denoise(settings, config.seed, dataset, model, options);
  REQUIRE(result.status == train::TrainStatus::kComplete);
  REQUIRE(saved.size() == 2);
  CHECK(saved[0].steps_done == 30);
  CHECK(saved[1].steps_done == 60);
  CHECK(saved[1].curve.size() == 60);

  // Resuming from the second checkpoint ends where the uninterrupted run ended.
  const train::TrainingState decoded =
      train::decode_checkpoint(train::encode_checkpoint(saved[1]), "memory");
  model::Model<float> resumed(12, 3, config.model, config.layer);
  train::TrainOptions resume;
  resume.quiet = true;
  resume.resume_from = &decoded;
  const train::TrainResult finished =
      testing::train_denoise(settings, config.seed, dataset, resumed, resume);
  CHECK(finished.final_test_metric == result.final_test_metric);
  CHECK(std::memcmp(resumed.params.values.data(), model.params.values.data(),
                    model.params.values.size() * sizeof(float)) == 0);
}

TEST_CASE("a checkpoint keeps the probe's rows (format version 2)") {
  train::TrainingState state;
  state.steps_done = state.adam_steps = 1;
  state.curve.push_back(train::LossPoint{});
  state.probe_rows.push_back(train::ProbeRow{1, {0.5, std::nan(""), 1.0}});
  state.probe_seconds = 1.25;
  const train::TrainingState decoded =
      train::decode_checkpoint(train::encode_checkpoint(state), "memory");
  REQUIRE(decoded.probe_rows.size() == 1);
  CHECK(decoded.probe_rows[0].values[0] == 0.5);
  CHECK(std::isnan(decoded.probe_rows[0].values[1]));
  CHECK(decoded.probe_seconds == 1.25);
}

TEST_CASE("a checkpoint keeps each evaluation's more held-out values (format version 3)") {
  train::TrainingState state;
  state.steps_done = state.adam_steps = 2;
  state.curve.push_back(train::LossPoint{});
  train::LossPoint evaluated{};
  evaluated.step = 2;
  evaluated.test_metric = 1.5;
  evaluated.held_out = {0.25, 2.0, std::nan("")};
  state.curve.push_back(evaluated);
  const train::TrainingState decoded =
      train::decode_checkpoint(train::encode_checkpoint(state), "memory");
  REQUIRE(decoded.curve.size() == 2);
  CHECK(decoded.curve[0].held_out.empty());
  REQUIRE(decoded.curve[1].held_out.size() == 3);
  CHECK(decoded.curve[1].held_out[1] == 2.0);
  CHECK(std::isnan(decoded.curve[1].held_out[2]));

  // A version-2 file, written before these values existed, still resumes (without them): the
  // same bytes less each point's empty array (a count of 0), with its header's version, length
  // and checksum.
  state.curve[1].held_out.clear();
  const std::string three = train::encode_checkpoint(state);
  const std::size_t header = 8 + 4 + 8;  // magic, version, payload length
  // The payload before the first point: steps, three empty arrays, Adam's steps, the sampler's
  // state, its empty order and position, and the curve's length.
  const std::size_t first_point = 4 + 3 * 8 + 8 + 4 * 8 + 8 + 1 + 8 + 8 + 8;
  const std::size_t point = 4 + 5 * 8;
  std::string payload = three.substr(header, three.size() - header - 8);
  // Each point's count of 0, the second point's first, so that the first's offset still holds.
  payload.erase(first_point + 2 * point + 8, 8);
  payload.erase(first_point + point, 8);
  std::string two = three.substr(0, 8);
  const std::uint32_t version = 2;
  const std::uint64_t length = payload.size(), checksum = io::content_hash(payload);
  two.append(reinterpret_cast<const char*>(&version), sizeof version);
  two.append(reinterpret_cast<const char*>(&length), sizeof length);
  two += payload;
  two.append(reinterpret_cast<const char*>(&checksum), sizeof checksum);
  const train::TrainingState old = train::decode_checkpoint(two, "memory");
  REQUIRE(old.curve.size() == 2);
  CHECK(old.curve[1].test_metric == 1.5);
  CHECK(old.curve[1].held_out.empty());
}
