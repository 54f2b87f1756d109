// The whole layer and its loss, differentiated by the tape, against central finite
// differences in double for every parameter.
#include <doctest/doctest.h>

#include "data/rng.hpp"
#include "model/layer.hpp"

using namespace ufl;
using namespace ufl::model;

namespace {

double layer_gradient_error(LayerShape shape, int batch, double gate_logit, std::uint64_t seed) {
  Parameters<double> params(shape);
  data::Rng rng(seed, data::Stream::kMonteCarlo);
  for (double& value : params.values) value = 0.5 * rng.normal();
  params.value(Parameters<double>::kG)[0] = gate_logit;
  Tape<double> tape;
  auto graph = record_layer(tape, params, batch, 0.3, true);
  plan_layer(tape, graph);
  for (Var input : {graph.x, graph.target}) {
    auto tensor = tape.value(input);
    for (std::size_t e = 0; e < tensor.size(); ++e) tensor.data[e] = rng.normal();
  }
  tape.forward();
  tape.backward(graph.loss);
  const std::vector<double> analytic = params.grads;
  double max_error = 0, max_numeric = 0;
  for (std::size_t e = 0; e < params.values.size(); ++e) {
    const double original = params.values[e], step = 1e-6 * std::max(1.0, std::abs(original));
    params.values[e] = original + step;
    tape.forward();
    const double plus = tape.value(graph.loss).data[0];
    params.values[e] = original - step;
    tape.forward();
    const double minus = tape.value(graph.loss).data[0];
    params.values[e] = original;
    const double numeric = (plus - minus) / (2 * step);
    max_error = std::max(max_error, std::abs(numeric - analytic[e]));
    max_numeric = std::max(max_numeric, std::abs(numeric));
  }
  return max_error / max_numeric;
}

}  // namespace

TEST_CASE("layer + loss gradients match finite differences for several shapes and gates") {
  CHECK(layer_gradient_error(LayerShape{5, 3, 4}, 3, 0.3, 1) <= 1e-6);
  CHECK(layer_gradient_error(LayerShape{6, 2, 6}, 2, -2.0, 2) <= 1e-6);
  CHECK(layer_gradient_error(LayerShape{4, 4, 2}, 4, 3.0, 3) <= 1e-6);
}
