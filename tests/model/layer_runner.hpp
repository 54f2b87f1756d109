#pragma once
// Runs a model in double on given inputs, for the model tests.
#include <vector>

#include "data/rng.hpp"
#include "model/mixers/universal.hpp"
#include "model/model.hpp"

namespace ufl::testing {

struct ModelRun {
  std::vector<Eigen::MatrixXd> Y, M;  // M of the first layer
};

inline std::vector<Eigen::MatrixXd> random_inputs(int count, int n, int d, std::uint64_t seed) {
  data::Rng rng(seed, data::Stream::kMonteCarlo);
  std::vector<Eigen::MatrixXd> inputs(count, Eigen::MatrixXd(n, d));
  for (auto& x : inputs)
    for (int i = 0; i < n; ++i)
      for (int c = 0; c < d; ++c) x(i, c) = rng.normal();
  return inputs;
}

// A model of `depth` layers as `layer` says on n×d inputs, on a stream of `width` channels
// (0: d).
inline model::Model<double> model_with(int n, int d, const model::LayerConfig& layer, int depth = 1,
                                       bool residual = false, int width = 0) {
  model::ModelConfig stack;
  stack.depth = depth;
  stack.residual = residual;
  stack.width = width;
  return model::Model<double>(n, d, stack, layer);
}

// A model of `depth` layers of `mixer` with rank r on n×d inputs, on a stream of `width`
// channels (0: d).
inline model::Model<double> model_of(int n, int d, int r, const std::string& mixer = "universal",
                                     int depth = 1, bool residual = false, int width = 0) {
  model::LayerConfig layer;
  layer.mixer = mixer;
  layer.rank = r;
  return model_with(n, d, layer, depth, residual, width);
}

// Layer l of a universal model, by parameter name.
inline model::UniversalParameters<double> universal_layer(model::Model<double>& model, int l = 0) {
  auto views = model.mixer_parameters(l);
  using Mixer = model::UniversalMixer<double>;
  return {model.part(l).shape, views[Mixer::kA], views[Mixer::kB],
          views[Mixer::kS],    views[Mixer::kG], model.w_v(l)};
}

inline ModelRun run_model(model::Model<double>& model, const std::vector<Eigen::MatrixXd>& inputs) {
  Tape<double> tape;
  const int batch = static_cast<int>(inputs.size());
  const auto graph =
      model::record_model(tape, model, batch, false, model::LayerKernels::kComposite);
  tape.plan();
  for (int s = 0; s < batch; ++s) tape.value(graph.x).matrix(s) = inputs[s];
  tape.forward();
  ModelRun run;
  for (int s = 0; s < batch; ++s) {
    run.Y.push_back(tape.value(graph.y).view(s));
    run.M.push_back(tape.value(graph.blocks.front().parts.front().M).view(s));
  }
  return run;
}

}  // namespace ufl::testing
