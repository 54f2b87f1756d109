// The residual stream's ends: zero padding of the input to the stream's width, and the first d
// channels of the stream as the output.
#include "tape/ops/columns.hpp"

#include "gradient_check.hpp"

using namespace ufl;
using ufl::testing::Checked;
using ufl::testing::gradient_check;

TEST_CASE("pad_columns appends zero columns; leading_columns takes the first ones back") {
  Tape<float> tape;
  const Var a = tape.input(Shape{1, 2, 2}, "a");
  const Var padded = pad_columns(tape, a, 3);
  const Var back = leading_columns(tape, padded, 2);
  const Var first = leading_columns(tape, padded, 1);
  tape.plan();
  const float values[] = {1, 2, 3, 4};
  std::copy(values, values + 4, tape.value(a).data);
  tape.forward();
  CHECK(tape.shape(padded) == Shape{1, 2, 3});
  const float expected_padded[] = {1, 2, 0, 3, 4, 0};
  for (int e = 0; e < 6; ++e) CHECK(tape.value(padded).data[e] == expected_padded[e]);
  for (int e = 0; e < 4; ++e) CHECK(tape.value(back).data[e] == values[e]);
  CHECK(tape.value(first).data[0] == 1);
  CHECK(tape.value(first).data[1] == 3);
}

TEST_CASE("pad_columns and leading_columns: gradients match finite differences") {
  CHECK(gradient_check([](Tape<double>& tape, std::vector<Checked>& checked) {
          const Var x = tape.input(Shape{3, 4, 2}, "x", true);
          checked = {{x}};
          return pad_columns(tape, x, 5);
        }) <= 1e-6);
  CHECK(gradient_check([](Tape<double>& tape, std::vector<Checked>& checked) {
          const Var x = tape.input(Shape{3, 4, 5}, "x", true);
          checked = {{x}};
          return leading_columns(tape, x, 2);  // the other columns' gradient is exactly 0
        }) <= 1e-6);
}

TEST_CASE("the stream's width cannot be below the data's channels") {
  Tape<float> tape;
  const Var a = tape.input(Shape{1, 2, 3}, "a");
  CHECK_THROWS_AS(pad_columns(tape, a, 2), std::logic_error);
  CHECK_THROWS_AS(leading_columns(tape, a, 4), std::logic_error);
  CHECK_THROWS_AS(leading_columns(tape, a, 0), std::logic_error);
}
