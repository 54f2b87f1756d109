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
  PackedWeight w_1_copies, w_2_copies;                            // per-step buffers

  void plan_fields() {
    const std::size_t n = layout.n, width = layout.width, hidden = layout.hidden;
    normed = this->add_field(n * width);
    stats = this->add_field(2 * n);
    pre_activation = this->add_field(n * hidden);  // a, then da
    activation = this->add_field(n * hidden);      // g = GELU(a)
    w_1_copies = this->add_packed_weight(layout.width, layout.hidden);
    w_2_copies = this->add_packed_weight(layout.hidden, layout.width);
    this->temporaries_per_sample = n * hidden + n * width;  // dg, dx̂
  }

  bool sums_batch_gradient(std::size_t input) const override {
    const int i = int(input);
    return i == layout.w_1 || i == layout.b_1 || i == layout.w_2 || i == layout.b_2;
  }

  // The norm's operands over the `rows` rows of the samples from `first` on.
  NormOperands<T> norm_operands(const Tape<T>& tape, int first, int rows) const {
    return {this->value_of(tape, layout.x).sample(first), this->value_of(tape, layout.gain).data,
            layout.bias >= 0 ? this->value_of(tape, layout.bias).data : nullptr, rows,
            layout.width};
  }

  void prepare_forward(Tape<T>& tape) override {
    this->pack_forward(w_1_copies, this->value_of(tape, layout.w_1).view(0));
    this->pack_forward(w_2_copies, this->value_of(tape, layout.w_2).view(0));
  }

  void forward_sample(Tape<T>& tape, int b) override { forward_group(tape, b, b + 1); }
  // Over the group's rows at once (every step is row by row).
  void forward_group(Tape<T>& tape, int first, int end) override {
    const int width = layout.width, hidden = layout.hidden, rows = (end - first) * layout.n;
    const NormOperands<T> norm = norm_operands(tape, first, rows);
    T* normed_rows = this->field(normed, first);
    norm_forward<T>(norm, normed_rows, this->field(stats, first));
    MatrixMap<T> a(this->field(pre_activation, first), rows, hidden);
    multiply(a, ConstMatrixMap<T>(normed_rows, rows, width),
             this->forward_operand(w_1_copies, this->value_of(tape, layout.w_1).view(0)));
    a.rowwise() += this->value_of(tape, layout.b_1).view(0).row(0);
    T* g = this->field(activation, first);
    gelu_forward<T>(a.data(), g, std::size_t(rows) * hidden);
    MatrixMap<T> output(tape.value(this->output).sample(first), rows, width);
    output = ConstMatrixMap<T>(norm.x, rows, width);
    output.rowwise() += this->value_of(tape, layout.b_2).view(0).row(0);
    multiply(output, ConstMatrixMap<T>(g, rows, hidden),
             this->forward_operand(w_2_copies, this->value_of(tape, layout.w_2).view(0)), true);
  }

  void prepare_backward(Tape<T>& tape) override {
    this->pack_backward(w_1_copies, this->value_of(tape, layout.w_1).view(0));
    this->pack_backward(w_2_copies, this->value_of(tape, layout.w_2).view(0));
  }

  void backward_sample(Tape<T>& tape, int b) override { backward_group(tape, b, b + 1); }
  void backward_group(Tape<T>& tape, int first, int end) override {
    const int width = layout.width, hidden = layout.hidden, rows = (end - first) * layout.n;
    const ConstMatrixMap<T> d_out(tape.grad(this->output).sample(first), rows, width);
    T* dx = this->sink(layout.x).begin_sample(first);
    if (dx != nullptr) MatrixMap<T>(dx, rows, width) += d_out;
    T* temporaries = this->temporaries(tape, first);
    MatrixMap<T> d_activation(temporaries, rows, hidden);
    MatrixMap<T> d_normed(temporaries + std::size_t(rows) * hidden, rows, width);
    multiply(d_activation, d_out, this->backward_operand(w_2_copies));
    T* a = this->field(pre_activation, first);
    gelu_gradient<T>(a, d_activation.data(), a, std::size_t(rows) * hidden);  // da in place of a
    multiply(d_normed, ConstMatrixMap<T>(a, rows, hidden), this->backward_operand(w_1_copies));
    norm_backward<T>(norm_operands(tape, first, rows), this->field(stats, first), d_normed.data(),
                     {dx, this->sink(layout.gain).begin_sample(first),
                      layout.bias >= 0 ? this->sink(layout.bias).begin_sample(first) : nullptr});
  }

  // dW₁ += X̂ᵀ·dA, db₁ += Σ dA, dW₂ += Gᵀ·dOut, db₂ += Σ dOut over every row of the batch.
  void finish_backward(Tape<T>& tape) override {
    const std::ptrdiff_t rows = std::ptrdiff_t(this->batch) * layout.n;
    const int width = layout.width, hidden = layout.hidden;
    const RowsView<T> d_a{this->field_start(pre_activation), rows, hidden, hidden};
    const RowsView<T> d_out{tape.grad(this->output).data, rows, width, width};
    if (T* dw_1 = this->sink(layout.w_1).grad)
      add_transposed_product<T>({this->field_start(normed), rows, width, width}, d_a, dw_1, hidden);
    if (T* db_1 = this->sink(layout.b_1).grad) add_column_sums<T>(d_a, db_1);
    if (T* dw_2 = this->sink(layout.w_2).grad)
      add_transposed_product<T>({this->field_start(activation), rows, hidden, hidden}, d_out, dw_2,
                                width);
    if (T* db_2 = this->sink(layout.b_2).grad) add_column_sums<T>(d_out, db_2);
  }
};

}  // namespace ufl::model
