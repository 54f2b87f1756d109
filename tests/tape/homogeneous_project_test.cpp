// X̃A with homogeneous coordinates [x; one-hot position; 1] (seed 003, spec §2).
#include "tape/ops/homogeneous_project.hpp"

#include "gradient_check.hpp"

using namespace ufl;
using ufl::testing::Checked;
using ufl::testing::gradient_check;

TEST_CASE("homogeneous_project equals the explicit product with [X, I, 1]") {
  const int n = 4, d = 3, r = 5;
  Tape<double> tape;
  const Var x = tape.input(Shape{2, n, d}, "x"), a = tape.input(Shape{1, d + n + 1, r}, "a");
  const Var u = homogeneous_project(tape, x, a);
  tape.plan();
  data::Rng rng(3, data::Stream::kMonteCarlo);
  for (std::size_t e = 0; e < tape.value(x).size(); ++e) tape.value(x).data[e] = rng.normal();
  for (std::size_t e = 0; e < tape.value(a).size(); ++e) tape.value(a).data[e] = rng.normal();
  tape.forward();
  for (int s = 0; s < 2; ++s) {
    RowMatrix<double> homogeneous(n, d + n + 1);
    homogeneous << tape.value(x).view(s), RowMatrix<double>::Identity(n, n),
        RowMatrix<double>::Ones(n, 1);
    const RowMatrix<double> expected = homogeneous * tape.value(a).view(0);
    CHECK((tape.value(u).view(s) - expected).cwiseAbs().maxCoeff() < 1e-12);
  }
}

TEST_CASE("homogeneous_project gradients match finite differences") {
  CHECK(gradient_check([](Tape<double>& tape, std::vector<Checked>& checked) {
          const Var x = tape.input(Shape{3, 5, 2}, "x", true);
          const Var a = tape.input(Shape{1, 2 + 5 + 1, 4}, "a", true);
          checked = {{x}, {a}};
          return homogeneous_project(tape, x, a);
        }) <= 1e-6);
}
