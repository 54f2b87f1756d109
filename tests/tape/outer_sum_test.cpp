// add_outer: S + factor·(a·1ᵀ + 1·bᵀ), known values and gradients against finite differences.
#include "tape/ops/outer_sum.hpp"

#include "gradient_check.hpp"

using namespace ufl;
using ufl::testing::Checked;
using ufl::testing::gradient_check;

TEST_CASE("add_outer adds factor·a_i to row i and factor·b_j to column j") {
  Tape<float> tape;
  const Var s = tape.input(Shape{1, 2, 3}, "S"), a = tape.input(Shape{1, 2, 1}, "a");
  const Var b = tape.input(Shape{1, 1, 3}, "b");
  const Var out = add_outer(tape, s, a, b, -0.5);
  tape.plan();
  const float s_values[] = {1, 2, 3, 4, 5, 6}, a_values[] = {2, 4}, b_values[] = {0, 2, 6};
  std::copy(s_values, s_values + 6, tape.value(s).data);
  std::copy(a_values, a_values + 2, tape.value(a).data);
  std::copy(b_values, b_values + 3, tape.value(b).data);
  tape.forward();
  const float expected[] = {0, 0, -1, 2, 2, 1};
  for (int e = 0; e < 6; ++e) CHECK(tape.value(out).data[e] == expected[e]);
}

TEST_CASE("add_outer gradients match finite differences, per-sample and shared operands") {
  for (int shared : {1, 3}) {
    CAPTURE(shared);
    CHECK(gradient_check([&](Tape<double>& tape, std::vector<Checked>& checked) {
            const Var s = tape.input(Shape{3, 4, 5}, "S", true);
            const Var a = tape.input(Shape{3, 4, 1}, "a", true);
            const Var b = tape.input(Shape{shared, 1, 5}, "b", true);
            checked = {{s}, {a}, {b}};
            return add_outer(tape, s, a, b, -0.5);
          }) <= 1e-6);
  }
}
