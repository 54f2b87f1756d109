// Causal masks: the masked softmax's rows are distributions over j ≤ i and exactly 0 beyond; the
// lower triangle keeps j ≤ i; both have exact gradients.
#include "tape/ops/causal.hpp"

#include "gradient_check.hpp"

using namespace ufl;
using ufl::testing::Checked;
using ufl::testing::gradient_check;

TEST_CASE("the causal softmax of a known matrix") {
  Tape<double> tape;
  const Var s = tape.input(Shape{1, 3, 3}, "s");
  const Var p = causal_softmax_rows(tape, s);
  const Var l = lower_triangular(tape, s);
  const Var mean = causal_row_mean(tape, s);
  tape.plan();
  const double values[] = {5, 100, 100, 0, 0, 100, 0, std::log(2.0), 0};
  std::copy(values, values + 9, tape.value(s).data);
  tape.forward();
  const double* out = tape.value(p).data;
  CHECK(out[0] == 1.0);
  CHECK(out[1] == 0.0);
  CHECK(out[2] == 0.0);
  CHECK(out[3] == doctest::Approx(0.5));
  CHECK(out[5] == 0.0);
  CHECK(out[6] == doctest::Approx(0.25));
  CHECK(out[7] == doctest::Approx(0.5));
  const double* lower = tape.value(l).data;
  CHECK(lower[1] == 0.0);
  CHECK(lower[3] == 0.0);
  CHECK(lower[7] == doctest::Approx(std::log(2.0)));
  // The row mean: row i of the lower triangle divided by i + 1.
  const double* averaged = tape.value(mean).data;
  CHECK(averaged[0] == 5.0);
  CHECK(averaged[1] == 0.0);
  CHECK(averaged[3] == 0.0);
  CHECK(averaged[5] == 0.0);
  CHECK(averaged[7] == doctest::Approx(std::log(2.0) / 3));
}

TEST_CASE("causal softmax and lower triangle gradients match finite differences") {
  CHECK(gradient_check([](Tape<double>& tape, std::vector<Checked>& checked) {
          const Var s = tape.input(Shape{3, 5, 5}, "s", true);
          checked = {{s, 3.0}};
          return causal_softmax_rows(tape, s);
        }) <= 1e-6);
  CHECK(gradient_check([](Tape<double>& tape, std::vector<Checked>& checked) {
          const Var s = tape.input(Shape{1, 4, 4}, "s", true);  // a shared (fixed) operator
          checked = {{s}};
          return lower_triangular(tape, s);
        }) <= 1e-6);
  CHECK(gradient_check([](Tape<double>& tape, std::vector<Checked>& checked) {
          const Var s = tape.input(Shape{3, 5, 5}, "s", true);
          checked = {{s}};
          return causal_row_mean(tape, s);
        }) <= 1e-6);
}
