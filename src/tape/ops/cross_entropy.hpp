#pragma once
// The tied unembedding fused with the cross-entropy (docs/transformer.md §1; llm.c fuses softmax
// and cross-entropy the same way): per position i, logits_i = h_i·Eᵀ with E the token embedding,
// p_i = softmax(logits_i), CE_i = −log p_i[t_i] in nats; per sample
//   loss    = Σ_i w_i·CE_i / Σ_i w_i                (0 when every weight is 0)
//   correct = Σ_i w_i·[argmax p_i = t_i] / Σ_i w_i  (no gradient)
// Backward: dlogits_i = (p_i − onehot(t_i))·w_i/Σw·g, dh = dlogits·E, dE += dlogitsᵀ·h. The
// probabilities are kept from forward; dlogits is a per-group temporary.
#include <cmath>

#include "tape/keeping_op.hpp"
#include "tape/ops/embedding.hpp"

namespace ufl {

struct CrossEntropyGraph {
  Var loss;     // [B, 1, 1]
  Var correct;  // [B, 1, 1]
};

// One sample's operands, by name.
template <class T>
struct TiedCrossEntropyOperands {
  ConstMatrixMap<T> h;      // the last hidden states (n×D)
  ConstMatrixMap<T> table;  // E (V×D)
  const T* targets;         // t_i, token ids stored as values (n)
  const T* weights;         // w_i (n)
};

// One sample; returns {loss, correct}; `probabilities` (n×V) is kept.
template <class T>
std::pair<T, T> tied_cross_entropy_forward(const TiedCrossEntropyOperands<T>& in,
                                           MatrixMap<T> probabilities) {
  const int vocab = int(in.table.rows());
  probabilities.noalias() = in.h * in.table.transpose();
  T total_weight = 0, loss = 0, correct = 0;
  for (Eigen::Index i = 0; i < probabilities.rows(); ++i) {
    auto row = probabilities.row(i);
    Eigen::Index best = 0;
    const T row_max = row.maxCoeff(&best);
    const int target = token_id(in.targets[i], vocab);
    const T target_logit = row(target) - row_max;
    row = (row.array() - row_max).exp();
    const T total = row.sum();
    row /= total;
    total_weight += in.weights[i];
    // −log p_t = log Σ_v exp(l_v − max) − (l_t − max): finite even where p_t underflows.
    loss += in.weights[i] * (std::log(total) - target_logit);
    if (best == target) correct += in.weights[i];
  }
  if (total_weight <= T(0)) return {T(0), T(0)};
  return {loss / total_weight, correct / total_weight};
}

// One sample, from g = ∂loss/∂(its loss) and the kept probabilities; `d_logits` (n×V) is scratch.
// dh and dtable are added to; each nullptr when not needed.
template <class T>
void tied_cross_entropy_backward(const TiedCrossEntropyOperands<T>& in,
                                 ConstMatrixMap<T> probabilities, T g, MatrixMap<T> d_logits, T* dh,
                                 T* dtable) {
  const ConstMatrixMap<T>& h = in.h;
  const ConstMatrixMap<T>& table = in.table;
  T total_weight = 0;
  for (Eigen::Index i = 0; i < probabilities.rows(); ++i) total_weight += in.weights[i];
  if (total_weight <= T(0)) return;
  d_logits = probabilities;
  for (Eigen::Index i = 0; i < d_logits.rows(); ++i) {
    d_logits(i, token_id(in.targets[i], int(table.rows()))) -= T(1);
    d_logits.row(i) *= in.weights[i] * g / total_weight;
  }
  if (dh != nullptr) MatrixMap<T>(dh, h.rows(), h.cols()).noalias() += d_logits * table;
  if (dtable != nullptr)
    MatrixMap<T>(dtable, table.rows(), table.cols()).noalias() += d_logits.transpose() * h;
}

// inputs: h [B, n, D], E [1, V, D], targets [B, n, 1], weights [B, n, 1].
template <class T>
struct TiedCrossEntropyOp : KeepingOp<T> {
  enum Operand : int { kH, kTable, kTargets, kWeights };
  static_assert(kH == KeepingOp<T>::kBatched);
  int n = 0, vocab = 0;
  std::size_t kept_size() const override { return std::size_t(n) * vocab; }
  std::size_t temporaries_size() const override { return std::size_t(n) * vocab; }
  MatrixMap<T> probabilities(int b) const { return MatrixMap<T>(this->kept(b), n, vocab); }
  TiedCrossEntropyOperands<T> operands(const Tape<T>& tape, int b) const {
    return {this->value_of(tape, kH).view(b), this->value_of(tape, kTable).view(0),
            this->value_of(tape, kTargets).sample(b), this->value_of(tape, kWeights).sample(b)};
  }

  void forward_sample(Tape<T>& tape, int b) override {
    const auto [loss, correct] = tied_cross_entropy_forward<T>(operands(tape, b), probabilities(b));
    tape.value(this->output).sample(b)[0] = loss;
    tape.value(this->extra_outputs[0]).sample(b)[0] = correct;
  }
  void backward_sample(Tape<T>& tape, int b) override {
    T* dh = this->sink(kH).begin_sample(b);
    T* dtable = this->sink(kTable).begin_sample(b);
    const MatrixMap<T> p = probabilities(b);
    tied_cross_entropy_backward<T>(operands(tape, b), ConstMatrixMap<T>(p.data(), n, vocab),
                                   tape.grad(this->output).sample(b)[0],
                                   MatrixMap<T>(this->temporaries(tape, b), n, vocab), dh, dtable);
  }
};

template <class T>
CrossEntropyGraph tied_cross_entropy(Tape<T>& tape, Var h, Var table, Var targets, Var weights,
                                     std::string name = "cross_entropy") {
  const Shape& sh = tape.shape(h);
  const Shape& st = tape.shape(table);
  if (st.batch != 1 || st.cols != sh.cols || tape.shape(targets) != Shape{sh.batch, sh.rows, 1} ||
      tape.shape(weights) != Shape{sh.batch, sh.rows, 1})
    throw std::logic_error(name + ": shapes do not fit h " + sh.str() + " and E " + st.str());
  if (tape.needs_grad(targets) || tape.needs_grad(weights))
    throw std::logic_error(name + ": targets and weights take no gradient");
  auto op = std::make_unique<TiedCrossEntropyOp<T>>();
  op->inputs = {h, table, targets, weights};  // kH, kTable, kTargets, kWeights
  op->n = sh.rows;
  op->vocab = st.rows;
  const std::vector<Var> outputs = tape.record_outputs(
      std::move(op), {{Shape{sh.batch, 1, 1}, name}, {Shape{sh.batch, 1, 1}, name + "_correct"}});
  return {outputs[0], outputs[1]};
}

}  // namespace ufl
