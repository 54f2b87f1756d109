#pragma once
// Token embedding (docs/transformer.md §1): row i of the output is row ids_i of the table E,
// out[i] = E[ids_i]; the ids are token numbers stored as values of the tape (exact below 2²⁴ in
// float) and need no gradient. Backward scatters each row's gradient into the table, dE[ids_i]
// += dout[i], as llm.c's encoder_backward.
#include <cmath>
#include <stdexcept>

#include "tape/ops/broadcast.hpp"

namespace ufl {

template <class T>
int token_id(T value, int vocab) {
  const long id = std::lround(double(value));
  if (id < 0 || id >= vocab || double(id) != double(value))
    throw std::logic_error("token id " + std::to_string(double(value)) + " outside [0, " +
                           std::to_string(vocab) + ")");
  return int(id);
}

template <class T>
void embed_forward(const T* ids, ConstMatrixMap<T> table, MatrixMap<T> out) {
  for (Eigen::Index i = 0; i < out.rows(); ++i)
    out.row(i) = table.row(token_id(ids[i], int(table.rows())));
}

template <class T>
void embed_backward(const T* ids, ConstMatrixMap<T> dout, MatrixMap<T> dtable) {
  for (Eigen::Index i = 0; i < dout.rows(); ++i)
    dtable.row(token_id(ids[i], int(dtable.rows()))) += dout.row(i);
}

// inputs: ids [B, n, 1], E [1, V, D]; output [B, n, D].
template <class T>
struct EmbedOp : Op<T> {
  enum Operand : int { kIds, kTable };
  void forward_sample(Tape<T>& tape, int b) override {
    embed_forward<T>(this->value_of(tape, kIds).sample(b), this->value_of(tape, kTable).view(0),
                     tape.value(this->output).matrix(b));
  }
  void backward_sample(Tape<T>& tape, int b) override {
    T* dtable = this->sink(kTable).begin_sample(b);
    if (dtable == nullptr) return;
    const Shape& st = this->shape_of(tape, kTable);
    embed_backward<T>(this->value_of(tape, kIds).sample(b), tape.grad(this->output).view(b),
                      MatrixMap<T>(dtable, st.rows, st.cols));
  }
};

template <class T>
Var embed(Tape<T>& tape, Var ids, Var table, std::string name = "embed") {
  const Shape& si = tape.shape(ids);
  const Shape& st = tape.shape(table);
  if (si.cols != 1 || st.batch != 1)
    throw std::logic_error(name + ": ids must be [B, n, 1] and the table [1, V, D], got " +
                           si.str() + " and " + st.str());
  if (tape.needs_grad(ids)) throw std::logic_error(name + ": token ids take no gradient");
  auto op = std::make_unique<EmbedOp<T>>();
  op->inputs = {ids, table};  // kIds, kTable
  return tape.record(std::move(op), Shape{si.batch, si.rows, st.cols}, std::move(name));
}

}  // namespace ufl
