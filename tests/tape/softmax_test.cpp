// Row softmax: rows sum to one, invariance to a row shift, large logits, gradients.
#include "tape/ops/softmax.hpp"

#include "gradient_check.hpp"

using namespace ufl;
using ufl::testing::Checked;
using ufl::testing::gradient_check;

TEST_CASE("softmax rows are distributions and survive logits of 1000") {
  Tape<float> tape;
  const Var s = tape.input(Shape{1, 2, 3}, "s");
  const Var p = softmax_rows(tape, s);
  tape.plan();
  const float logits[] = {0, 0, 0, 1000, 1000, 0};
  std::copy(logits, logits + 6, tape.value(s).data);
  tape.forward();
  const float* out = tape.value(p).data;
  for (int j = 0; j < 3; ++j) CHECK(out[j] == doctest::Approx(1.0 / 3));
  CHECK(out[3] == doctest::Approx(0.5));
  CHECK(out[4] == doctest::Approx(0.5));
  CHECK(out[5] == 0.0f);
}

TEST_CASE("softmax gradients match finite differences, small and large logits") {
  for (double scale : {1.0, 20.0})
    for (int cols : {2, 9}) {
      CAPTURE(scale);
      CAPTURE(cols);
      CHECK(gradient_check([&](Tape<double>& tape, std::vector<Checked>& checked) {
              const Var s = tape.input(Shape{3, 4, cols}, "s", true);
              checked = {{s, scale, 50.0}};  // offset 50: large logits in every row
              return softmax_rows(tape, s);
            }) <= 1e-6);
    }
}
