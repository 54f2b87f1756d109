#pragma once
// The MLP branch of a transformer block as one op (docs/transformer.md §8): for each sample,
//   x̂ = norm₂(x),  a = x̂·W₁ + b₁,  g = GELU(a),  out = x + g·W₂ + b₂
// forward and backward side by side, the GELU applied to each product's rows while they are in
// cache. Backward per sample: dg = dOut·W₂ᵀ, da = dg ⊙ GELU'(a) (in place of a), dx̂ = da·W₁ᵀ, the
// norm's backward, dx += dOut. The weight and bias gradients are one product (one column sum)
// over all B·n rows after every sample's backward (tensor/batch_product.hpp). The composite graph
// (modules/mlp.hpp with modules/norm.hpp) is the reference this is tested against.
#include "tape/batched_op.hpp"
#include "tape/ops/gelu.hpp"
#include "tape/ops/norm.hpp"
#include "tensor/batch_product.hpp"
#include "tensor/small_gemm.hpp"

namespace ufl::model {

// The op's named inputs and sizes.
struct MlpLayout {
  int n = 0, width = 0, hidden = 0;
  int x = 0, gain = 1, bias = -1, w_1 = -1, b_1 = -1, w_2 = -1, b_2 = -1;
};

template <class T>
struct MlpBranchOp : BatchedOp<T> {
  MlpLayout layout;
  int normed = 0, stats = 0, pre_activation = 0, activation = 0;  // fields

  void plan_fields() {
    const std::size_t n = layout.n, width = layout.width, hidden = layout.hidden;
    normed = this->add_field(n * width);
    stats = this->add_field(2 * n);
    pre_activation = this->add_field(n * hidden);          // a, then da
    activation = this->add_field(n * hidden);              // g = GELU(a)
    this->per_step_size = 2 * width * hidden;              // W₁ᵀ and W₂ᵀ
    this->temporaries_per_group = n * hidden + n * width;  // dg, dx̂
  }

  bool sums_batch_gradient(std::size_t input) const override {
    const int i = int(input);
    return i == layout.w_1 || i == layout.b_1 || i == layout.w_2 || i == layout.b_2;
  }

  void forward_sample(Tape<T>& tape, int b) override {
    const int n = layout.n, width = layout.width, hidden = layout.hidden;
    const T* x = tape.value(this->inputs[layout.x]).sample(b);
    T* normed_b = this->field(normed, b);
    norm_forward<T>(x, tape.value(this->inputs[layout.gain]).data,
                    layout.bias >= 0 ? tape.value(this->inputs[layout.bias]).data : nullptr,
                    normed_b, this->field(stats, b), n, width);
    MatrixMap<T> a(this->field(pre_activation, b), n, hidden);
    multiply(a, ConstMatrixMap<T>(normed_b, n, width),
             tape.value(this->inputs[layout.w_1]).view(0));
    a.rowwise() += tape.value(this->inputs[layout.b_1]).view(0).row(0);
    T* g = this->field(activation, b);
    gelu_forward<T>(a.data(), g, std::size_t(n) * hidden);
    MatrixMap<T> output = tape.value(this->output).matrix(b);
    output = ConstMatrixMap<T>(x, n, width);
    output.rowwise() += tape.value(this->inputs[layout.b_2]).view(0).row(0);
    multiply(output, ConstMatrixMap<T>(g, n, hidden), tape.value(this->inputs[layout.w_2]).view(0),
             true);
  }

  void prepare_backward(Tape<T>& tape) override {
    const int width = layout.width, hidden = layout.hidden;
    transpose_into(tape.value(this->inputs[layout.w_1]).view(0), this->per_step());
    transpose_into(tape.value(this->inputs[layout.w_2]).view(0),
                   this->per_step() + std::size_t(hidden) * width);
  }

  void backward_sample(Tape<T>& tape, int b) override {
    const int n = layout.n, width = layout.width, hidden = layout.hidden;
    const ConstMatrixMap<T> d_out = tape.grad(this->output).view(b);
    T* dx = this->sinks[layout.x].begin_sample(b);
    if (dx != nullptr) MatrixMap<T>(dx, n, width) += d_out;
    T* temporaries = this->temporaries(tape, b);
    MatrixMap<T> d_activation(temporaries, n, hidden);
    MatrixMap<T> d_normed(temporaries + std::size_t(n) * hidden, n, width);
    multiply(d_activation, d_out,
             ConstMatrixMap<T>(this->per_step() + std::size_t(hidden) * width, width, hidden));
    T* a = this->field(pre_activation, b);
    gelu_gradient<T>(a, d_activation.data(), a, std::size_t(n) * hidden);  // da in place of a
    multiply(d_normed, ConstMatrixMap<T>(a, n, hidden),
             ConstMatrixMap<T>(this->per_step(), hidden, width));
    norm_backward<T>(
        tape.value(this->inputs[layout.x]).sample(b), tape.value(this->inputs[layout.gain]).data,
        layout.bias >= 0, this->field(stats, b), d_normed.data(), dx,
        this->sinks[layout.gain].begin_sample(b),
        layout.bias >= 0 ? this->sinks[layout.bias].begin_sample(b) : nullptr, n, width);
  }

  // dW₁ += X̂ᵀ·dA, db₁ += Σ dA, dW₂ += Gᵀ·dOut, db₂ += Σ dOut over every row of the batch.
  void finish_backward(Tape<T>& tape) override {
    const std::ptrdiff_t rows = std::ptrdiff_t(this->batch) * layout.n;
    const int width = layout.width, hidden = layout.hidden;
    const RowsView<T> d_a{this->field_start(pre_activation), rows, hidden, hidden};
    const RowsView<T> d_out{tape.grad(this->output).data, rows, width, width};
    if (T* dw_1 = this->sinks[layout.w_1].grad)
      add_transposed_product<T>({this->field_start(normed), rows, width, width}, d_a, dw_1, hidden);
    if (T* db_1 = this->sinks[layout.b_1].grad) add_column_sums<T>(d_a, db_1);
    if (T* dw_2 = this->sinks[layout.w_2].grad)
      add_transposed_product<T>({this->field_start(activation), rows, hidden, hidden}, d_out, dw_2,
                                width);
    if (T* db_2 = this->sinks[layout.b_2].grad) add_column_sums<T>(d_out, db_2);
  }
};

}  // namespace ufl::model
