// The loss recorded apart from the model: each sample's squared error per element, and its
// gradient with respect to Y.
#include "task/loss.hpp"

#include "../tape/gradient_check.hpp"

using namespace ufl;
using ufl::testing::Checked;
using ufl::testing::gradient_check;

TEST_CASE("squared_error: ‖Y − C‖²/(n·d) per sample") {
  Tape<double> tape;
  const Var y = tape.input(Shape{2, 2, 2}, "Y");
  const Var c = tape.input(Shape{2, 2, 2}, "C");
  const Var error = task::squared_error(tape, y, c);
  tape.plan();
  for (int e = 0; e < 8; ++e) {
    tape.value(y).data[e] = e;
    tape.value(c).data[e] = e < 4 ? e + 1.0 : e;  // sample 0 off by 1 everywhere, sample 1 exact
  }
  tape.forward();
  CHECK(tape.value(error).data[0] == 1.0);
  CHECK(tape.value(error).data[1] == 0.0);
}

TEST_CASE("squared_error: its gradient with respect to Y matches finite differences") {
  CHECK(gradient_check([](Tape<double>& tape, std::vector<Checked>& checked) {
          const Var y = tape.input(Shape{3, 4, 2}, "Y", true);
          const Var c = tape.input(Shape{3, 4, 2}, "C");
          checked = {{y}};  // C stays 0
          return task::squared_error(tape, y, c);
        }) <= 1e-6);
}
