// Tape::forward with an edit (an intervention on one op's output, docs/head_structure.md §2): the
// ops after the edited one read the edited values, for a batch of samples and for a batch-1 tape
// (whose ops all run once, as shared ones), and the edit sees only the samples just computed.
#include <doctest/doctest.h>

#include "tape/ops/elementwise.hpp"

using namespace ufl;

TEST_CASE("an edit of one op's output reaches the ops after it, at any batch size") {
  for (int batch : {1, 5}) {
    CAPTURE(batch);
    Tape<float> tape;
    const Var x = tape.input(Shape{batch, 2, 2}, "x");
    const Var doubled = scale(tape, x, 2.0, "2x");
    const Var tripled = scale(tape, doubled, 3.0, "3·2x");
    tape.plan();
    for (int e = 0; e < 4 * batch; ++e) tape.value(x).data[e] = float(e + 1);
    int edited = 0;
    tape.forward([&](Tape<float>& on, Var output, int first, int end) {
      if (output.id != doubled.id) return;
      CHECK(first >= 0);
      CHECK(end <= batch);
      for (int b = first; b < end; ++b) {
        on.value(output).matrix(b) *= 10.0f;  // 2x becomes 20x
        ++edited;
      }
    });
    CHECK(edited == batch);
    for (int e = 0; e < 4 * batch; ++e) CHECK(tape.value(tripled).data[e] == 60.0f * (e + 1));
    // Without an edit the plain values come back.
    tape.forward();
    for (int e = 0; e < 4 * batch; ++e) CHECK(tape.value(tripled).data[e] == 6.0f * (e + 1));
  }
}
