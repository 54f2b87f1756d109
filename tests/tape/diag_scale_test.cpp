// Diagonal scaling A·diag(σ), σ shared or per sample.
#include "tape/ops/diag_scale.hpp"

#include "gradient_check.hpp"

using namespace ufl;
using ufl::testing::Checked;
using ufl::testing::gradient_check;

TEST_CASE("diag_scale multiplies column j by sigma_j") {
  Tape<float> tape;
  const Var a = tape.input(Shape{1, 2, 2}, "a"), sigma = tape.input(Shape{1, 1, 2}, "sigma");
  const Var out = diag_scale(tape, a, sigma);
  tape.plan();
  const float a_values[] = {1, 2, 3, 4}, sigma_values[] = {10, -1};
  std::copy(a_values, a_values + 4, tape.value(a).data);
  std::copy(sigma_values, sigma_values + 2, tape.value(sigma).data);
  tape.forward();
  const float expected[] = {10, -2, 30, -4};
  for (int e = 0; e < 4; ++e) CHECK(tape.value(out).data[e] == expected[e]);
}

TEST_CASE("diag_scale gradients match finite differences") {
  for (int sigma_batch : {1, 3}) {
    CAPTURE(sigma_batch);
    CHECK(gradient_check([&](Tape<double>& tape, std::vector<Checked>& checked) {
            const Var a = tape.input(Shape{3, 5, 4}, "a", true);
            const Var sigma = tape.input(Shape{sigma_batch, 1, 4}, "sigma", true);
            checked = {{a}, {sigma}};
            return diag_scale(tape, a, sigma);
          }) <= 1e-6);
  }
}
