// Per-sample transpose.
#include "tape/ops/transpose.hpp"

#include "gradient_check.hpp"

using namespace ufl;
using ufl::testing::Checked;
using ufl::testing::gradient_check;

TEST_CASE("transpose swaps rows and columns of each sample") {
  Tape<float> tape;
  const Var a = tape.input(Shape{1, 2, 3}, "a");
  const Var out = transpose(tape, a);
  tape.plan();
  const float values[] = {1, 2, 3, 4, 5, 6};
  std::copy(values, values + 6, tape.value(a).data);
  tape.forward();
  CHECK(tape.shape(out) == Shape{1, 3, 2});
  const float expected[] = {1, 4, 2, 5, 3, 6};
  for (int e = 0; e < 6; ++e) CHECK(tape.value(out).data[e] == expected[e]);
  CHECK(gradient_check([](Tape<double>& tape, std::vector<Checked>& checked) {
          const Var x = tape.input(Shape{3, 4, 2}, "x", true);
          checked = {{x}};
          return transpose(tape, x);
        }) <= 1e-6);
}
