// matmul: C = op(A)·op(B), per-sample and shared operands, every transpose combination.
#include "tape/ops/matmul.hpp"

#include "gradient_check.hpp"

using namespace ufl;
using ufl::testing::Checked;
using ufl::testing::gradient_check;

TEST_CASE("matmul forward multiplies each sample, broadcasting a shared operand") {
  Tape<float> tape;
  const Var a = tape.input(Shape{2, 2, 3}, "a");
  const Var b = tape.input(Shape{1, 3, 2}, "b");
  const Var c = matmul(tape, a, b);
  tape.plan();
  const float a_values[] = {1, 2, 3, 4, 5, 6, /* sample 2 */ 1, 0, 0, 0, 1, 0};
  const float b_values[] = {1, 0, 0, 1, 1, 1};
  std::copy(a_values, a_values + 12, tape.value(a).data);
  std::copy(b_values, b_values + 6, tape.value(b).data);
  tape.forward();
  const float expected[] = {4, 5, 10, 11, /* sample 2 */ 1, 0, 0, 1};
  for (int e = 0; e < 8; ++e) CHECK(tape.value(c).data[e] == expected[e]);
}

TEST_CASE("matmul gradients match finite differences for every transpose and sharing") {
  for (bool transpose_a : {false, true})
    for (bool transpose_b : {false, true})
      for (int shared : {0, 1, 2}) {  // 0: both per-sample, 1: A shared, 2: B shared
        CAPTURE(transpose_a);
        CAPTURE(transpose_b);
        CAPTURE(shared);
        const double error = gradient_check([&](Tape<double>& tape, std::vector<Checked>& checked) {
          const int m = 3, k = 4, n = 5;
          const Shape shape_a =
              transpose_a ? Shape{shared == 1 ? 1 : 3, k, m} : Shape{shared == 1 ? 1 : 3, m, k};
          const Shape shape_b =
              transpose_b ? Shape{shared == 2 ? 1 : 3, n, k} : Shape{shared == 2 ? 1 : 3, k, n};
          const Var a = tape.input(shape_a, "a", true), b = tape.input(shape_b, "b", true);
          checked = {{a}, {b}};
          return matmul(tape, a, b, transpose_a, transpose_b);
        });
        CHECK(error <= 1e-6);
      }
}

TEST_CASE("matmul rejects mismatched inner dimensions") {
  Tape<float> tape;
  const Var a = tape.input(Shape{1, 2, 3}, "a"), b = tape.input(Shape{1, 2, 3}, "b");
  CHECK_THROWS_AS(matmul(tape, a, b), std::logic_error);
  CHECK_NOTHROW(matmul(tape, a, b, false, true));
}
