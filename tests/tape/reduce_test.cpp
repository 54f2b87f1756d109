// sum and mean over a whole batch.
#include "tape/ops/reduce.hpp"

#include "gradient_check.hpp"

using namespace ufl;
using ufl::testing::Checked;
using ufl::testing::gradient_check;

TEST_CASE("sum and mean reduce every element of every sample") {
  Tape<float> tape;
  const Var a = tape.input(Shape{2, 1, 3}, "a");
  const Var total = sum(tape, a), average = mean(tape, a);
  tape.plan();
  const float values[] = {1, 2, 3, 4, 5, 6};
  std::copy(values, values + 6, tape.value(a).data);
  tape.forward();
  CHECK(tape.value(total).data[0] == 21.0f);
  CHECK(tape.value(average).data[0] == doctest::Approx(3.5));
}

TEST_CASE("sum and mean gradients match finite differences") {
  CHECK(gradient_check([](Tape<double>& tape, std::vector<Checked>& checked) {
          const Var a = tape.input(Shape{5, 3, 2}, "a", true);
          checked = {{a}};
          return mean(tape, square(tape, a));
        }) <= 1e-6);
  CHECK(gradient_check([](Tape<double>& tape, std::vector<Checked>& checked) {
          const Var a = tape.input(Shape{2, 2, 2}, "a", true);
          checked = {{a}};
          return sum(tape, a);
        }) <= 1e-6);
}

TEST_CASE("sample_sum: one scaled sum per sample, and its gradient") {
  Tape<double> tape;
  const Var a = tape.input(Shape{2, 2, 3}, "a");
  const Var out = sample_sum(tape, a, 0.5);
  tape.plan();
  for (int e = 0; e < 12; ++e) tape.value(a).data[e] = e;
  tape.forward();
  CHECK(tape.shape(out) == Shape{2, 1, 1});
  CHECK(tape.value(out).data[0] == 0.5 * (0 + 1 + 2 + 3 + 4 + 5));
  CHECK(tape.value(out).data[1] == 0.5 * (6 + 7 + 8 + 9 + 10 + 11));
  CHECK(gradient_check([](Tape<double>& tape, std::vector<Checked>& checked) {
          const Var a = tape.input(Shape{3, 2, 2}, "a", true);
          checked = {{a}};
          return sample_sum(tape, a, 0.25);
        }) <= 1e-6);
}
