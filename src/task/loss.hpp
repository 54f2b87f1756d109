#pragma once
// The denoise task's loss (docs/experiment.md §2), recorded on the model's output:
//   loss = mean_b ‖Y_b − C_b‖²_F/(n·d) + λ_orth · mean over layers of mean_b penalty_l,b,
// penalty_l,b = (‖UᵀU − I‖²_F + ‖VᵀV − I‖²_F)/r² for layers whose mixer has U and V.
#include "model/model.hpp"
#include "tape/ops.hpp"

namespace ufl::task {

using model::ModelGraph;

// One sample's squared error per element, ‖Y − C‖²_F/(n·d); R = Y − C is kept for backward.
template <class T>
T squared_error_forward(ConstMatrixMap<T> y, ConstMatrixMap<T> target, MatrixMap<T> residual) {
  residual = y - target;
  return residual.squaredNorm() / T(y.rows() * y.cols());
}

// dY += (2·g/(n·d))·R, g = ∂loss/∂(the sample's error).
template <class T>
void squared_error_backward(ConstMatrixMap<T> residual, T g, MatrixMap<T> dy) {
  dy += (T(2) * g / T(residual.rows() * residual.cols())) * residual;
}

// inputs: Y, C [B, n, d] (C needs no gradient); output [B, 1, 1].
template <class T>
struct SquaredErrorOp : Op<T> {
  enum Operand : int { kY, kTarget };
  std::size_t extra_scratch_elements(const Tape<T>& tape) const override {
    return this->shape_of(tape, kY).size();
  }
  MatrixMap<T> residual(const Tape<T>& tape, int b) const {
    const Shape& shape = this->shape_of(tape, kY);
    return MatrixMap<T>(this->scratch + std::size_t(b) * shape.sample_size(), shape.rows,
                        shape.cols);
  }
  void forward_sample(Tape<T>& tape, int b) override {
    tape.value(this->output).sample(b)[0] = squared_error_forward<T>(
        this->value_of(tape, kY).view(b), this->value_of(tape, kTarget).view(b), residual(tape, b));
  }
  void backward_sample(Tape<T>& tape, int b) override {
    T* dy = this->sink(kY).begin_sample(b);
    if (dy == nullptr) return;
    const Shape& shape = this->shape_of(tape, kY);
    const MatrixMap<T> r = residual(tape, b);
    squared_error_backward<T>(ConstMatrixMap<T>(r.data(), r.rows(), r.cols()),
                              tape.grad(this->output).sample(b)[0],
                              MatrixMap<T>(dy, shape.rows, shape.cols));
  }
};

template <class T>
Var squared_error(Tape<T>& tape, Var y, Var target, std::string name = "squared_error") {
  if (tape.shape(y) != tape.shape(target))
    throw std::logic_error(name + ": Y " + tape.shape(y).str() + " and C " +
                           tape.shape(target).str() + " differ");
  if (tape.needs_grad(target))
    throw std::logic_error(name + ": the gradient with respect to C is not computed");
  auto op = std::make_unique<SquaredErrorOp<T>>();
  op->inputs = {y, target};  // kY, kTarget
  return tape.record(std::move(op), Shape{tape.shape(y).batch, 1, 1}, std::move(name));
}

template <class T>
struct LossGraph {
  Var target;         // C, [B, n, d]
  Var mse;            // mean over the batch of each sample's squared error per element
  Var orthogonality;  // mean over layers of the batch mean of the penalty (0 without U, V)
  Var loss;
};

template <class T>
LossGraph<T> record_loss(Tape<T>& tape, const ModelGraph<T>& model, double ortho_weight) {
  LossGraph<T> graph;
  graph.target = tape.input(tape.shape(model.y), "C");
  graph.mse = column_mean(tape, squared_error(tape, model.y, graph.target), 0, "mse");
  std::vector<Var> penalties;
  for (const model::BlockGraph& block : model.blocks)
    for (const model::MixerGraph& part : block.parts)
      if (part.penalty.valid())
        penalties.push_back(column_mean(tape, part.penalty, 0, "orthogonality"));
  if (penalties.empty()) {
    graph.orthogonality = tape.constant(Shape{1, 1, 1}, "orthogonality");  // 0
    graph.loss = graph.mse;
    return graph;
  }
  graph.orthogonality = penalties.front();
  for (std::size_t l = 1; l < penalties.size(); ++l)
    graph.orthogonality = add(tape, graph.orthogonality, penalties[l], "orthogonality");
  if (penalties.size() > 1)
    graph.orthogonality =
        scale(tape, graph.orthogonality, 1.0 / double(penalties.size()), "orthogonality");
  graph.loss = add(tape, graph.mse, scale(tape, graph.orthogonality, ortho_weight), "loss");
  return graph;
}

}  // namespace ufl::task
