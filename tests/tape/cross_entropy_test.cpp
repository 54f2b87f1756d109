// The token embedding and the tied unembedding with the cross-entropy (docs/transformer.md §1):
// known values, per-position weights, and gradients for h and the shared table E, which both ops
// read (its gradient is the sum of the two), against finite differences in double.
#include "tape/ops/cross_entropy.hpp"

#include <cmath>

#include "gradient_check.hpp"
#include "tape/ops/embedding.hpp"
#include "tape/ops/reduce.hpp"

using namespace ufl;

namespace {

// Relative gradient error of Σ loss over `table` and `h` for embed(ids) + h → tied cross-entropy.
double tied_gradient_error(bool through_embedding) {
  const int batch = 3, n = 4, width = 5, vocab = 6;
  Tape<double> tape;
  const Var table = tape.input(Shape{1, vocab, width}, "E", true);
  const Var h = tape.input(Shape{batch, n, width}, "h", true);
  const Var ids = tape.input(Shape{batch, n, 1}, "ids");
  const Var targets = tape.input(Shape{batch, n, 1}, "targets");
  const Var weights = tape.input(Shape{batch, n, 1}, "weights");
  const Var stream = through_embedding ? add(tape, h, embed(tape, ids, table)) : h;
  const CrossEntropyGraph graph = tied_cross_entropy(tape, stream, table, targets, weights);
  const Var loss = sum(tape, graph.loss);
  tape.plan();
  data::Rng rng(5, data::Stream::kMonteCarlo);
  for (Var v : {table, h}) {
    auto t = tape.value(v);
    for (std::size_t e = 0; e < t.size(); ++e) t.data[e] = rng.normal();
  }
  for (std::size_t e = 0; e < std::size_t(batch * n); ++e) {
    tape.value(ids).data[e] = double(rng.below(vocab));
    tape.value(targets).data[e] = double(rng.below(vocab));
    tape.value(weights).data[e] = e % 4 == 3 ? 0.0 : 1.0 + 0.5 * double(e % 2);
  }
  tape.forward();
  tape.backward(loss);
  double max_error = 0, max_numeric = 0;
  for (Var v : {table, h}) {
    auto value = tape.value(v);
    const std::vector<double> analytic(tape.grad(v).data, tape.grad(v).data + value.size());
    for (std::size_t e = 0; e < value.size(); ++e) {
      const double original = value.data[e];
      value.data[e] = original + 1e-6;
      tape.forward();
      const double plus = tape.value(loss).data[0];
      value.data[e] = original - 1e-6;
      tape.forward();
      const double minus = tape.value(loss).data[0];
      value.data[e] = original;
      const double numeric = (plus - minus) / 2e-6;
      max_error = std::max(max_error, std::abs(numeric - analytic[e]));
      max_numeric = std::max(max_numeric, std::abs(numeric));
    }
  }
  return max_error / max_numeric;
}

}  // namespace

TEST_CASE("cross-entropy of known logits, weighted per position, with the accuracy") {
  Tape<double> tape;
  const Var table = tape.input(Shape{1, 3, 2}, "E");
  const Var h = tape.input(Shape{1, 2, 2}, "h");
  const Var targets = tape.input(Shape{1, 2, 1}, "targets");
  const Var weights = tape.input(Shape{1, 2, 1}, "weights");
  const CrossEntropyGraph graph = tied_cross_entropy(tape, h, table, targets, weights);
  tape.plan();
  // E = I₃ rows on 2 channels: (1,0), (0,1), (0,0); h rows (ln 3, 0) and (0, 0).
  const double e[] = {1, 0, 0, 1, 0, 0}, rows[] = {std::log(3.0), 0, 0, 0};
  std::copy(e, e + 6, tape.value(table).data);
  std::copy(rows, rows + 4, tape.value(h).data);
  tape.value(targets).data[0] = 0;  // logits (ln 3, 0, 0): p = 3/5, right
  tape.value(targets).data[1] = 2;  // logits (0, 0, 0): p = 1/3, argmax 0: wrong
  tape.value(weights).data[0] = 1;
  tape.value(weights).data[1] = 3;
  tape.forward();
  const double expected = (-std::log(0.6) + 3 * std::log(3.0)) / 4;
  CHECK(tape.value(graph.loss).data[0] == doctest::Approx(expected));
  CHECK(tape.value(graph.correct).data[0] == doctest::Approx(0.25));
  tape.value(weights).data[0] = tape.value(weights).data[1] = 0;
  tape.forward();
  CHECK(tape.value(graph.loss).data[0] == 0.0);  // nothing scored
}

TEST_CASE("the embedding copies table rows and refuses ids outside the vocabulary") {
  Tape<double> tape;
  const Var table = tape.input(Shape{1, 3, 2}, "E");
  const Var ids = tape.input(Shape{1, 2, 1}, "ids");
  const Var out = embed(tape, ids, table);
  tape.plan();
  const double e[] = {1, 2, 3, 4, 5, 6};
  std::copy(e, e + 6, tape.value(table).data);
  tape.value(ids).data[0] = 2;
  tape.value(ids).data[1] = 0;
  tape.forward();
  CHECK(tape.value(out).data[0] == 5);
  CHECK(tape.value(out).data[3] == 2);
  tape.value(ids).data[1] = 3;
  CHECK_THROWS_AS(tape.forward(), std::logic_error);
}

TEST_CASE(
    "tied unembedding gradients match finite differences, alone and sharing E with the embedding") {
  CHECK(tied_gradient_error(false) <= 1e-6);
  CHECK(tied_gradient_error(true) <= 1e-6);
}
