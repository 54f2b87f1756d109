// add, sub, mul (with a shared operand), scale, square, square_root and lerp.
#include "tape/ops/elementwise.hpp"

#include "gradient_check.hpp"

using namespace ufl;
using ufl::testing::Checked;
using ufl::testing::gradient_check;

TEST_CASE("binary ops compute elementwise values with a shared right operand") {
  Tape<float> tape;
  const Var a = tape.input(Shape{2, 1, 2}, "a"), b = tape.input(Shape{1, 1, 2}, "b");
  const Var sum_ab = add(tape, a, b), difference = sub(tape, a, b), product = mul(tape, a, b);
  tape.plan();
  const float a_values[] = {1, 2, 3, 4}, b_values[] = {10, 20};
  std::copy(a_values, a_values + 4, tape.value(a).data);
  std::copy(b_values, b_values + 2, tape.value(b).data);
  tape.forward();
  const float expected_sum[] = {11, 22, 13, 24}, expected_difference[] = {-9, -18, -7, -16},
              expected_product[] = {10, 40, 30, 80};
  for (int e = 0; e < 4; ++e) {
    CHECK(tape.value(sum_ab).data[e] == expected_sum[e]);
    CHECK(tape.value(difference).data[e] == expected_difference[e]);
    CHECK(tape.value(product).data[e] == expected_product[e]);
  }
}

TEST_CASE("binary op gradients match finite differences, per-sample and shared") {
  for (Binary kind : {Binary::kAdd, Binary::kSub, Binary::kMul})
    for (int shared_batch : {1, 4}) {
      CAPTURE(static_cast<int>(kind));
      CAPTURE(shared_batch);
      const double error = gradient_check([&](Tape<double>& tape, std::vector<Checked>& checked) {
        const Var a = tape.input(Shape{4, 3, 5}, "a", true);
        const Var b = tape.input(Shape{shared_batch, 3, 5}, "b", true);
        checked = {{a}, {b}};
        return binary(tape, kind, a, b, "binary");
      });
      CHECK(error <= 1e-6);
    }
}

TEST_CASE("scale and square gradients match finite differences") {
  CHECK(gradient_check([](Tape<double>& tape, std::vector<Checked>& checked) {
          const Var a = tape.input(Shape{3, 4, 2}, "a", true);
          checked = {{a}};
          return scale(tape, a, -2.5);
        }) <= 1e-6);
  CHECK(gradient_check([](Tape<double>& tape, std::vector<Checked>& checked) {
          const Var a = tape.input(Shape{3, 4, 2}, "a", true);
          checked = {{a}};
          return square(tape, a);
        }) <= 1e-6);
}

TEST_CASE("lerp is a at t = 0, b at t = 1, and its gradients match finite differences") {
  Tape<float> tape;
  const Var a = tape.input(Shape{1, 1, 2}, "a"), b = tape.input(Shape{1, 1, 2}, "b");
  const Var t = tape.input(Shape{1, 1, 1}, "t");
  const Var out = lerp(tape, a, b, t);
  tape.plan();
  tape.value(a).data[0] = 1, tape.value(a).data[1] = 2;
  tape.value(b).data[0] = 5, tape.value(b).data[1] = -2;
  tape.value(t).data[0] = 0.25f;
  tape.forward();
  CHECK(tape.value(out).data[0] == doctest::Approx(2.0));
  CHECK(tape.value(out).data[1] == doctest::Approx(1.0));

  CHECK(gradient_check([](Tape<double>& tape, std::vector<Checked>& checked) {
          const Var a = tape.input(Shape{3, 4, 4}, "a", true);
          const Var b = tape.input(Shape{3, 4, 4}, "b", true);
          const Var t = tape.input(Shape{1, 1, 1}, "t", true);
          checked = {{a}, {b}, {t}};
          return lerp(tape, a, b, t);
        }) <= 1e-6);
}

TEST_CASE("add_diagonal: a + c·I, and its gradient") {
  Tape<double> tape;
  const Var a = tape.input(Shape{1, 2, 2}, "a");
  const Var out = add_diagonal(tape, a, -1.0);
  tape.plan();
  for (int e = 0; e < 4; ++e) tape.value(a).data[e] = e + 1;
  tape.forward();
  CHECK(tape.value(out).data[0] == 0.0);
  CHECK(tape.value(out).data[1] == 2.0);
  CHECK(tape.value(out).data[2] == 3.0);
  CHECK(tape.value(out).data[3] == 3.0);
  CHECK(gradient_check([](Tape<double>& tape, std::vector<Checked>& checked) {
          const Var a = tape.input(Shape{2, 3, 3}, "a", true);
          checked = {{a}};
          return add_diagonal(tape, a, 0.5);
        }) <= 1e-6);
}

TEST_CASE("square_root: √a, and its gradient matches finite differences") {
  Tape<float> tape;
  const Var a = tape.input(Shape{1, 1, 3}, "a");
  const Var root = square_root(tape, a);
  tape.plan();
  const float values[] = {4, 0.25f, 9};
  std::copy(values, values + 3, tape.value(a).data);
  tape.forward();
  const float expected[] = {2, 0.5f, 3};
  for (int e = 0; e < 3; ++e) CHECK(tape.value(root).data[e] == expected[e]);
  CHECK(gradient_check([](Tape<double>& tape, std::vector<Checked>& checked) {
          const Var x = tape.input(Shape{2, 3, 4}, "x", true);
          checked = {{x, 0.3, 2.0}};  // positive: 2 + 0.3·N(0, 1)
          return square_root(tape, x);
        }) <= 1e-6);
}
