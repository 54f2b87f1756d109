// softplus and sigmoid: values, stability at large |x|, gradients.
#include "tape/ops/activation.hpp"

#include "gradient_check.hpp"

using namespace ufl;
using ufl::testing::Checked;
using ufl::testing::gradient_check;

TEST_CASE("softplus and sigmoid have their known values and stay finite for large inputs") {
  CHECK(stable_softplus(0.0) == doctest::Approx(std::log(2.0)));
  CHECK(stable_softplus(1000.0) == doctest::Approx(1000.0));
  CHECK(stable_softplus(-1000.0) == 0.0);
  CHECK(stable_sigmoid(0.0) == 0.5);
  CHECK(stable_sigmoid(1000.0) == 1.0);
  CHECK(stable_sigmoid(-1000.0) == 0.0);
  CHECK(std::isfinite(stable_softplus(1000.0f)));
}

TEST_CASE("softplus and sigmoid gradients match finite differences") {
  for (Activation kind : {Activation::kSoftplus, Activation::kSigmoid})
    for (double scale : {1.0, 6.0}) {
      CAPTURE(static_cast<int>(kind));
      CAPTURE(scale);
      CHECK(gradient_check([&](Tape<double>& tape, std::vector<Checked>& checked) {
              const Var x = tape.input(Shape{2, 3, 7}, "x", true);
              checked = {{x, scale}};
              return activation(tape, kind, x, "activation");
            }) <= 1e-6);
    }
}
