// GELU with the tanh approximation: known values and gradients.
#include "tape/ops/gelu.hpp"

#include "gradient_check.hpp"
#include "tape/ops/rows.hpp"

using namespace ufl;
using ufl::testing::Checked;
using ufl::testing::gradient_check;

TEST_CASE("GELU: 0 at 0, about x for large x, about 0 for very negative x, 0.8412 at 1") {
  Tape<double> tape;
  const Var x = tape.input(Shape{1, 1, 4}, "x");
  const Var y = gelu(tape, x);
  tape.plan();
  const double values[] = {0, 1, 10, -10};
  std::copy(values, values + 4, tape.value(x).data);
  tape.forward();
  CHECK(tape.value(y).data[0] == 0.0);
  CHECK(tape.value(y).data[1] == doctest::Approx(0.841192).epsilon(1e-5));
  CHECK(tape.value(y).data[2] == doctest::Approx(10.0));
  CHECK(std::abs(tape.value(y).data[3]) < 1e-10);
}

TEST_CASE("GELU and the row bias: gradients match finite differences") {
  CHECK(gradient_check([](Tape<double>& tape, std::vector<Checked>& checked) {
          const Var x = tape.input(Shape{2, 3, 4}, "x", true);
          const Var bias = tape.input(Shape{1, 1, 4}, "bias", true);
          checked = {{x, 2.0}, {bias}};
          return gelu(tape, add_rows(tape, x, bias));
        }) <= 1e-6);
}
