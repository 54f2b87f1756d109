#pragma once
// Runs the layer in double on given inputs, for the model tests.
#include <vector>

#include "data/rng.hpp"
#include "model/layer.hpp"

namespace ufl::testing {

struct LayerRun {
  std::vector<Eigen::MatrixXd> Y, M;
};

inline std::vector<Eigen::MatrixXd> random_inputs(int count, int n, int d, std::uint64_t seed) {
  data::Rng rng(seed, data::Stream::kMonteCarlo);
  std::vector<Eigen::MatrixXd> inputs(count, Eigen::MatrixXd(n, d));
  for (auto& x : inputs)
    for (int i = 0; i < n; ++i)
      for (int c = 0; c < d; ++c) x(i, c) = rng.normal();
  return inputs;
}

inline LayerRun run_layer(model::Parameters<double>& params,
                          const std::vector<Eigen::MatrixXd>& inputs) {
  Tape<double> tape;
  const int batch = static_cast<int>(inputs.size());
  auto graph = model::record_layer(tape, params, batch, 0.0, false);
  model::plan_layer(tape, graph);
  for (int s = 0; s < batch; ++s) tape.value(graph.x).matrix(s) = inputs[s];
  tape.forward();
  LayerRun run;
  for (int s = 0; s < batch; ++s) {
    run.Y.push_back(tape.value(graph.Y).view(s));
    run.M.push_back(tape.value(graph.M).view(s));
  }
  return run;
}

}  // namespace ufl::testing
