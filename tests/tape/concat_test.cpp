// The heads' outputs side by side: known layout and gradients for every part.
#include "gradient_check.hpp"
#include "tape/ops/columns.hpp"

using namespace ufl;
using ufl::testing::Checked;
using ufl::testing::gradient_check;

TEST_CASE("concat_columns puts the parts side by side, in order") {
  Tape<double> tape;
  const Var a = tape.input(Shape{1, 2, 1}, "a");
  const Var b = tape.input(Shape{1, 2, 2}, "b");
  const Var c = concat_columns(tape, {a, b});
  tape.plan();
  const double av[] = {1, 2}, bv[] = {3, 4, 5, 6};
  std::copy(av, av + 2, tape.value(a).data);
  std::copy(bv, bv + 4, tape.value(b).data);
  tape.forward();
  const double expected[] = {1, 3, 4, 2, 5, 6};
  for (int e = 0; e < 6; ++e) CHECK(tape.value(c).data[e] == expected[e]);
}

TEST_CASE("concat_columns gradients match finite differences") {
  CHECK(gradient_check([](Tape<double>& tape, std::vector<Checked>& checked) {
          const Var a = tape.input(Shape{3, 4, 2}, "a", true);
          const Var b = tape.input(Shape{3, 4, 3}, "b", true);
          checked = {{a}, {b}};
          return concat_columns(tape, {a, b, a});
        }) <= 1e-6);
}
