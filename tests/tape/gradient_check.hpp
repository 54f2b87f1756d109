#pragma once
// Checks a tape's reverse-mode gradients against central finite differences in double.
// The graph under test returns a tensor `out`; the check builds loss = Σ out ⊙ W with a fixed
// random W (so every output element matters with its own weight) and compares dloss/dv for
// every checked variable v.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "data/rng.hpp"
#include "tape/ops.hpp"

namespace ufl::testing {

struct Checked {
  Var var;
  double scale = 1.0;  // inputs are drawn as scale·N(0, 1)
  double offset = 0.0;
};

// ‖analytic − numeric‖∞ / ‖numeric‖∞ over each checked variable; returns the worst.
inline double gradient_check(const std::function<Var(Tape<double>&, std::vector<Checked>&)>& build,
                             std::uint64_t seed = 7) {
  Tape<double> tape;
  std::vector<Checked> checked;
  const Var out = build(tape, checked);
  const Var weights = tape.constant(tape.shape(out), "weights");
  const Var loss = sum(tape, mul(tape, out, weights));
  tape.plan();

  data::Rng rng(seed, data::Stream::kMonteCarlo);
  for (const Checked& c : checked) {
    auto value = tape.value(c.var);
    for (std::size_t e = 0; e < value.size(); ++e)
      value.data[e] = c.offset + c.scale * rng.normal();
  }
  auto w = tape.value(weights);
  for (std::size_t e = 0; e < w.size(); ++e) w.data[e] = rng.normal();

  tape.forward();
  tape.backward(loss);
  double worst = 0.0;
  for (const Checked& c : checked) {
    auto value = tape.value(c.var);
    std::vector<double> analytic(tape.grad(c.var).data, tape.grad(c.var).data + value.size());
    double max_error = 0.0, max_numeric = 0.0;
    for (std::size_t e = 0; e < value.size(); ++e) {
      const double original = value.data[e];
      const double step = 1e-6 * std::max(1.0, std::abs(original));
      value.data[e] = original + step;
      tape.forward();
      const double plus = tape.value(loss).data[0];
      value.data[e] = original - step;
      tape.forward();
      const double minus = tape.value(loss).data[0];
      value.data[e] = original;
      const double numeric = (plus - minus) / (2 * step);
      max_error = std::max(max_error, std::abs(numeric - analytic[e]));
      max_numeric = std::max(max_numeric, std::abs(numeric));
    }
    const double relative = max_error / std::max(max_numeric, 1e-12);
    INFO("variable '", tape.name(c.var), "' ", tape.shape(c.var).str(), " error ", relative);
    CHECK(max_numeric > 0.0);  // a gradient that is identically zero would check nothing
    worst = std::max(worst, relative);
  }
  return worst;
}

}  // namespace ufl::testing
