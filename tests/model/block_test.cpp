// A block kind is its file and one registry line, measured included (model/block.hpp): the kind
// below is defined in this file only, registered for the test by one line
// (BlockKindRegistration), and trained, described and measured by the same code as the
// registry's kinds, through the record its blocks carry (Block::parts). Its block holds two
// mixers of different kinds side by side, H + Σ_k M_k(H)·H·W_k, so it also shows that a block
// whose heads differ in mixer is measured head by head without asking what its block is.
#include "model/block.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <memory>
#include <string>

#include "config/load.hpp"
#include "model/model.hpp"
#include "results/run_writer.hpp"
#include "run/task_run.hpp"
#include "train/trainer.hpp"

namespace ufl {
namespace {

using model::Measured;

// H + Σ_k M_k(H)·H·W_k over its parts, each recorded op by op by its own mixer.
template <class T>
struct SideBySideBlock : model::Block<T> {
  void initialize(model::Model<T>& model, data::Rng& rng) const override {
    for (const model::MixerPart<T>& part : this->parts) {
      part.mixer->initialize(model.views(part.mixer_slices), part.shape, model.layer_config, rng);
      model.params.matrix(part.value_slice).setIdentity();
    }
  }
  Var record(Tape<T>& tape, model::Model<T>& model, Var h, bool with_grads, model::LayerKernels,
             model::ModelGraph<T>& graph) const override {
    model::BlockGraph recorded{h, h, {}, "composite"};
    for (const model::MixerPart<T>& part : this->parts) {
      std::vector<Var> params;
      for (int index : part.mixer_slices)
        params.push_back(model::parameter_node(tape, model.params, index, with_grads));
      const Var w_v = model::parameter_node(tape, model.params, part.value_slice, with_grads);
      model::MixerGraph branch = part.mixer->record(tape, h, params, w_v, part.shape,
                                                    model::LayerKernels::kComposite, with_grads);
      branch.input = h;
      recorded.output = add(tape, recorded.output, branch.out, "side_by_side");
      recorded.parts.push_back(branch);
    }
    graph.blocks.push_back(recorded);
    return recorded.output;
  }
};

// Each block: layer.mixer and the convolution mixer, each part measured `how`.
class SideBySideKind : public model::BlockKind {
 public:
  SideBySideKind(std::string name, Measured how) : name_(std::move(name)), how_(how) {}
  std::string name() const override { return name_; }
  std::string summary() const override { return "test only: H + Σ_k M_k(H)·H·W_k"; }
  void build(model::Model<float>& model, const model::HeadMixers<float>& mixers,
             bool) const override {
    for (int l = 0; l < model.config.depth; ++l) {
      auto block = std::make_shared<SideBySideBlock<float>>();
      int k = 0;
      for (const model::Mixer<float>* chosen :
           {mixers.front(), &model::mixer<float>("convolution")}) {
        model::MixerPart<float> part;
        part.mixer = chosen;
        part.shape = model::LayerShape{model.n, model.width, model.layer_config.rank};
        part.measured = how_;
        const std::string prefix =
            "block" + std::to_string(l + 1) + "/part" + std::to_string(++k) + "/";
        for (const model::TensorSpec& spec : chosen->parameters(part.shape, model.layer_config))
          part.mixer_slices.push_back(
              model.params.add(l, spec.name, prefix + spec.name, spec.rows, spec.cols));
        part.value_slice = model.params.add(l, "W_v", prefix + "W_v", model.width, model.width);
        block->parts.push_back(std::move(part));
      }
      model.blocks.push_back(std::move(block));
    }
  }
  model::ResourceEstimate estimate(const data::DatasetConfig&, const model::LayerConfig&,
                                   const model::HeadMixers<float>&, const model::ModelConfig&,
                                   const model::TrainingShape&, int threads, bool) const override {
    model::ResourceEstimate estimate;
    estimate.threads = threads;
    return estimate;
  }
  std::string stack_text(const model::ModelConfig& model, int) const override {
    return ", " + std::to_string(model.depth) + " " + name_ + " blocks";
  }

 private:
  std::string name_;
  Measured how_;
};

config::Config side_by_side_config(const std::string& block) {
  return config::parse_config(R"({"dataset": {"kind": "global", "n": 8, "d": 4, "train_size": 64,
                                              "test_size": 16},
                                  "layer": {"mixer": "attention"},
                                  "model": {"block": ")" +
                                  block + R"(", "depth": 2, "residual": true},
                                  "train": {"steps": 4, "batch_size": 8, "eval_every": 2}})",
                              "side-by-side block test");
}

// A fresh folder under the system's temporary one.
std::filesystem::path fresh_folder(const std::string& name) {
  const std::filesystem::path folder = std::filesystem::temp_directory_path() / name;
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  return folder;
}

// Starts a denoise run of `block`, trains it 4 steps, writes its parameters and analyses it.
struct MeasuredRun {
  std::unique_ptr<run::TaskRun> started;
  train::TrainResult training;
  nlohmann::json metrics;
  std::filesystem::path folder;
};
MeasuredRun train_and_measure(const std::string& block) {
  const config::Config config = side_by_side_config(block);
  MeasuredRun out;
  out.started = run::start_run(config, "");
  train::TrainOptions options;
  options.quiet = true;
  options.probe = out.started->probe();
  out.training = train::train_session(config.train, config.seed, out.started->session(),
                                      out.started->model(), options);
  out.folder = fresh_folder("ufl_block_test_" + block);
  results::write_parameters(out.folder, out.started->model());
  out.metrics = out.started->analyze(out.folder);
  return out;
}

}  // namespace

TEST_CASE("a kind registered by one line is found, validated and built like the registry's") {
  const SideBySideKind kind("side_by_side", Measured::kAsHead);
  CHECK(model::find_block_kind("side_by_side") == nullptr);
  {
    const model::BlockKindRegistration registered(kind);
    CHECK(model::find_block_kind("side_by_side") == &kind);
    CHECK_THROWS_AS(model::BlockKindRegistration{kind}, std::logic_error);  // a name once only
    const config::Config config = side_by_side_config("side_by_side");
    const model::Model<float> built(8, 4, config.model, config.layer);
    CHECK(built.kind == &kind);
    REQUIRE(built.depth() == 2);
    REQUIRE(built.blocks[0]->parts.size() == 2);
    CHECK(built.part(0, 0).mixer->name() == "attention");
    CHECK(built.part(0, 1).mixer->name() == "convolution");
  }
  CHECK(model::find_block_kind("side_by_side") == nullptr);  // gone with its registration
  CHECK_THROWS_AS(side_by_side_config("side_by_side"), std::exception);
}

TEST_CASE("a test kind's parts measured as heads get the heads' measures, each with its mixer") {
  const SideBySideKind kind("side_by_side_heads", Measured::kAsHead);
  const model::BlockKindRegistration registered(kind);
  const MeasuredRun run = train_and_measure("side_by_side_heads");
  CHECK(run.training.status == train::TrainStatus::kComplete);
  CHECK(run.training.kernels == std::vector<std::string>{"composite", "composite"});
  // Measured end to end and head by head (analysis/block_measure.hpp), as a transformer is.
  CHECK(run.started->figure_scripts() == std::vector<std::string>{"head_map.py"});
  CHECK(run.started->probe() == nullptr);
  CHECK(run.metrics["block"] == "side_by_side_heads");
  CHECK(run.metrics["test_mse"].get<double>() > 0);
  REQUIRE(run.metrics["layers"].size() == 2);
  for (const auto& block : run.metrics["layers"]) {
    REQUIRE(block["heads"].size() == 2);
    // The attention head has no gate of its own, the convolution head's M is one matrix.
    CHECK(block["heads"][0]["iota"].get<double>() > 0);
    CHECK(block["heads"][1]["iota"].get<double>() == doctest::Approx(0.0).scale(1.0));
  }
  CHECK(std::filesystem::exists(run.folder / "heads/block2_head2.npy"));
}

TEST_CASE("a test kind's parts measured as layers get Section 8's measures, each its own layer") {
  const SideBySideKind kind("side_by_side_layers", Measured::kAsLayer);
  const model::BlockKindRegistration registered(kind);
  const MeasuredRun run = train_and_measure("side_by_side_layers");
  CHECK(run.training.status == train::TrainStatus::kComplete);
  // The score trajectory of the first layer (the first block's attention part).
  REQUIRE(run.started->probe() != nullptr);
  CHECK(run.training.probe_rows.size() == 2);
  CHECK(run.started->figure_scripts().empty());
  // Two blocks of two parts: four layers, in order, each scored as a layer of a stack.
  REQUIRE(run.metrics["layers"].size() == 4);
  const std::vector<std::string> mixers = {"attention", "convolution", "attention", "convolution"};
  for (int l = 0; l < 4; ++l) {
    CHECK(run.metrics["layers"][l]["layer"] == l + 1);
    CHECK(run.metrics["layers"][l]["mixer"] == mixers[l]);
  }
  CHECK(run.metrics["layer_verdicts"].size() == 4);
  // The layers' derived arrays (Σ of the attention parts) beside the parameters.
  CHECK(std::filesystem::exists(run.folder / "layer1/Sigma.npy"));
  CHECK(std::filesystem::exists(run.folder / "layer3/Sigma.npy"));
  CHECK_FALSE(std::filesystem::exists(run.folder / "layer2/Sigma.npy"));
}

}  // namespace ufl
