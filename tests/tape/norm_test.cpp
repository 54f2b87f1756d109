// Layer norm and RMS norm (docs/transformer.md §1): known values, and gradients for the input, the
// gain and the bias against finite differences in double.
#include "tape/ops/norm.hpp"

#include "gradient_check.hpp"

using namespace ufl;
using ufl::testing::Checked;
using ufl::testing::gradient_check;

TEST_CASE("layer norm of a known row: zero mean, unit variance, then gain and bias") {
  Tape<double> tape;
  const Var x = tape.input(Shape{1, 1, 4}, "x");
  const Var gain = tape.input(Shape{1, 1, 4}, "gain");
  const Var bias = tape.input(Shape{1, 1, 4}, "bias");
  const Var y = layer_norm(tape, x, gain, bias);
  const Var z = rms_norm(tape, x, gain);
  tape.plan();
  const double row[] = {1, 2, 3, 6}, g[] = {1, 1, 2, 1}, b[] = {0, 0, 0, 10};
  std::copy(row, row + 4, tape.value(x).data);
  std::copy(g, g + 4, tape.value(gain).data);
  std::copy(b, b + 4, tape.value(bias).data);
  tape.forward();
  // mean 3, biased variance (4 + 1 + 0 + 9)/4 = 3.5
  const double inverse = 1 / std::sqrt(3.5 + 1e-5);
  CHECK(tape.value(y).data[0] == doctest::Approx(-2 * inverse));
  CHECK(tape.value(y).data[2] == doctest::Approx(0.0));
  CHECK(tape.value(y).data[3] == doctest::Approx(3 * inverse + 10));
  // rms: mean of squares (1 + 4 + 9 + 36)/4 = 12.5
  CHECK(tape.value(z).data[2] == doctest::Approx(2 * 3 / std::sqrt(12.5 + 1e-5)));
}

TEST_CASE("layer norm and RMS norm gradients match finite differences") {
  CHECK(gradient_check([](Tape<double>& tape, std::vector<Checked>& checked) {
          const Var x = tape.input(Shape{3, 4, 5}, "x", true);
          const Var gain = tape.input(Shape{1, 1, 5}, "gain", true);
          const Var bias = tape.input(Shape{1, 1, 5}, "bias", true);
          checked = {{x, 2.0, 0.5}, {gain, 1.0, 1.0}, {bias}};
          return layer_norm(tape, x, gain, bias);
        }) <= 1e-6);
  CHECK(gradient_check([](Tape<double>& tape, std::vector<Checked>& checked) {
          const Var x = tape.input(Shape{3, 4, 5}, "x", true);
          const Var gain = tape.input(Shape{1, 1, 5}, "gain", true);
          checked = {{x, 2.0, 0.5}, {gain, 1.0, 1.0}};
          return rms_norm(tape, x, gain);
        }) <= 1e-6);
}
