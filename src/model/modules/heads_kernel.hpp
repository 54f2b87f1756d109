#pragma once
// The mixing branch of a transformer block as one op (docs/transformer.md §8): for each sample,
//   x̂ = norm₁(x)                          layernorm or rmsnorm, its statistics kept
//   [Q₁ K₁ V₁ … Q_h K_h V_h] = x̂·W_in     one product for every head's projections (W_in packs
//                                          the heads' W_q, W_k and W_v side by side, once per step)
//   Q_k += O_q,k, K_k += O_k,k             the universal heads' position and bias rows
//   Z = [head_1 | … | head_h]              score heads (model/mixers/score_kernel.hpp) or a fixed
//                                          operator per head, M_k·V_k
//   out = x + Z·W_o
// forward and backward side by side. A sample's heads run one after another on its thread, so
// the parallel work is per sample, not per small op. The weight gradients dW_in = X̂ᵀ·dP and
// dW_o = Zᵀ·dOut are one product each over all B·n rows, after every sample's backward
// (tensor/batch_product.hpp); the projections' memory holds their gradients once a sample's
// backward has used them. The composite graph (modules/heads.hpp with modules/norm.hpp) is the
// reference this is tested against.
#include <vector>

#include "model/mixer.hpp"
#include "model/mixers/score_kernel.hpp"
#include "tape/batched_op.hpp"
#include "tape/ops/norm.hpp"
#include "tensor/batch_product.hpp"

namespace ufl::model {

// One head's place in the projections and its inputs of the op (-1: none).
struct HeadSlot {
  int query_col = -1, key_col = -1, value_col = 0;  // query_col -1: a fixed-operator head
  int query_offsets = -1, key_offsets = -1, gate = -1, fixed_operator = -1;
  ScoreKernelShape score;       // a score head's sizes
  std::size_t kept_offset = 0;  // its kept activations within the sample's `head_kept` field
  bool scores() const { return query_col >= 0; }
};

// Sizes and the op's named inputs.
struct HeadsLayout {
  int n = 0, width = 0, projections = 0;  // positions, D, columns of W_in
  int x = 0, gain = 1, bias = -1, w_in = -1, w_o = -1;
  std::vector<HeadSlot> heads;
  int head_values() const { return width / static_cast<int>(heads.size()); }
};

template <class T>
struct HeadsBranchOp : BatchedOp<T> {
  HeadsLayout layout;
  int normed = 0, stats = 0, projections = 0, head_kept = 0, mixed = 0;  // fields
  PackedWeight w_in_copies, w_o_copies;                                  // per-step buffers

  void plan_fields() {
    const std::size_t n = layout.n, width = layout.width;
    std::size_t kept = 0, temporaries = 0;
    for (HeadSlot& head : layout.heads) {
      head.kept_offset = kept;
      if (head.scores()) {
        kept += head.score.kept_size();
        temporaries = std::max(temporaries, head.score.temporaries_size());
      }
    }
    // A fixed head's backward needs Vᵀ (values × n) and dV (n × values).
    temporaries = std::max(temporaries, 2 * n * std::size_t(layout.head_values()));
    normed = this->add_field(n * width);
    stats = this->add_field(2 * n);
    projections = this->add_field(n * std::size_t(layout.projections));
    head_kept = this->add_field(std::max<std::size_t>(kept, 1));
    mixed = this->add_field(n * width);
    w_in_copies = this->add_packed_weight(layout.width, layout.projections);
    w_o_copies = this->add_packed_weight(layout.width, layout.width);
    // dZ and dx̂ (n × D each) for every sample of a group; a head's own for one sample.
    this->temporaries_per_sample = 2 * n * width;
    this->temporaries_shared = temporaries;
  }

  bool sums_batch_gradient(std::size_t input) const override {
    return int(input) == layout.w_in || int(input) == layout.w_o;
  }

  // The norm's operands over the `rows` rows of the samples from `first` on.
  NormOperands<T> norm_operands(const Tape<T>& tape, int first, int rows) const {
    return {this->value_of(tape, layout.x).sample(first), this->value_of(tape, layout.gain).data,
            layout.bias >= 0 ? this->value_of(tape, layout.bias).data : nullptr, rows,
            layout.width};
  }

  void prepare_forward(Tape<T>& tape) override {
    this->pack_forward(w_in_copies, this->value_of(tape, layout.w_in).view(0));
    this->pack_forward(w_o_copies, this->value_of(tape, layout.w_o).view(0));
  }

  void forward_sample(Tape<T>& tape, int b) override { forward_group(tape, b, b + 1); }
  // The norm and both products over the group's rows at once; the heads sample by sample.
  void forward_group(Tape<T>& tape, int first, int end) override {
    const int n = layout.n, width = layout.width, k = layout.projections;
    const int rows = (end - first) * n;
    const NormOperands<T> norm = norm_operands(tape, first, rows);
    T* normed_rows = this->field(normed, first);
    norm_forward<T>(norm, normed_rows, this->field(stats, first));
    multiply(MatrixMap<T>(this->field(projections, first), rows, k),
             ConstMatrixMap<T>(normed_rows, rows, width),
             this->forward_operand(w_in_copies, this->value_of(tape, layout.w_in).view(0)));
    for (int b = first; b < end; ++b) mix_heads(tape, b);
    MatrixMap<T> output(tape.value(this->output).sample(first), rows, width);
    output = ConstMatrixMap<T>(norm.x, rows, width);
    multiply(output, ConstMatrixMap<T>(this->field(mixed, first), rows, width),
             this->forward_operand(w_o_copies, this->value_of(tape, layout.w_o).view(0)), true);
  }

  // Sample b's heads: from its projections to its Z.
  void mix_heads(Tape<T>& tape, int b) {
    const int n = layout.n, width = layout.width, k = layout.projections;
    MatrixMap<T> projected(this->field(projections, b), n, k);
    T* z = this->field(mixed, b);
    const int values = layout.head_values();
    for (std::size_t h = 0; h < layout.heads.size(); ++h) {
      const HeadSlot& head = layout.heads[h];
      StridedMap<T> out(z + h * values, n, values, Eigen::OuterStride<>(width));
      const ConstStridedMap<T> v(projected.data() + head.value_col, n, values,
                                 Eigen::OuterStride<>(k));
      if (!head.scores()) {
        multiply(out, this->value_of(tape, head.fixed_operator).view(0), v);
        continue;
      }
      add_offsets(tape, head.query_offsets, projected, head.query_col, head.score.rank);
      add_offsets(tape, head.key_offsets, projected, head.key_col, head.score.rank);
      score_kernel_forward<T>(
          head.score,
          {read_columns(projected, head.query_col, head.score.rank),
           read_columns(projected, head.key_col, head.score.rank), v, gate(tape, head),
           this->field(head_kept, b) + head.kept_offset, out, this->shared_temporaries(tape, b)});
    }
  }

  void prepare_backward(Tape<T>& tape) override {
    this->pack_backward(w_in_copies, this->value_of(tape, layout.w_in).view(0));
    this->pack_backward(w_o_copies, this->value_of(tape, layout.w_o).view(0));
  }

  void backward_sample(Tape<T>& tape, int b) override { backward_group(tape, b, b + 1); }
  // Both products and the norm over the group's rows at once; the heads sample by sample.
  void backward_group(Tape<T>& tape, int first, int end) override {
    const int n = layout.n, width = layout.width, k = layout.projections;
    const int rows = (end - first) * n;
    const ConstMatrixMap<T> d_out(tape.grad(this->output).sample(first), rows, width);
    T* dx = this->sink(layout.x).begin_sample(first);
    if (dx != nullptr) MatrixMap<T>(dx, rows, width) += d_out;
    T* temporaries = this->temporaries(tape, first);
    MatrixMap<T> d_mixed(temporaries, rows, width);
    MatrixMap<T> d_normed(temporaries + std::size_t(rows) * width, rows, width);
    multiply(d_mixed, d_out, this->backward_operand(w_o_copies));  // dZ = dOut·W_oᵀ
    for (int b = first; b < end; ++b)
      unmix_heads(tape, b, d_mixed.data() + std::size_t(b - first) * n * width);
    // The projections now hold their gradients dP: dx̂ = dP·W_inᵀ, then the norm's backward.
    multiply(d_normed, ConstMatrixMap<T>(this->field(projections, first), rows, k),
             this->backward_operand(w_in_copies));
    norm_backward<T>(norm_operands(tape, first, rows), this->field(stats, first), d_normed.data(),
                     {dx, this->sink(layout.gain).begin_sample(first),
                      layout.bias >= 0 ? this->sink(layout.bias).begin_sample(first) : nullptr});
  }

  // Sample b's heads backward from dZ: its projections' memory gets their gradients dP.
  void unmix_heads(Tape<T>& tape, int b, const T* d_mixed) {
    const int n = layout.n, width = layout.width, k = layout.projections;
    const int values = layout.head_values();
    MatrixMap<T> projected(this->field(projections, b), n, k);
    T* head_temporaries = this->shared_temporaries(tape, b);
    for (std::size_t h = 0; h < layout.heads.size(); ++h) {
      const HeadSlot& head = layout.heads[h];
      const ConstStridedMap<T> d_head(d_mixed + h * values, n, values, Eigen::OuterStride<>(width));
      StridedMap<T> v(projected.data() + head.value_col, n, values, Eigen::OuterStride<>(k));
      if (!head.scores()) {
        fixed_head_backward(tape, head, d_head, v, head_temporaries, b);
        continue;
      }
      T* d_gate = head.gate >= 0 ? this->sink(head.gate).begin_sample(b) : nullptr;
      StridedMap<T> queries = columns(projected, head.query_col, head.score.rank);
      StridedMap<T> keys = columns(projected, head.key_col, head.score.rank);
      score_kernel_backward<T>(
          head.score, {read_columns(projected, head.query_col, head.score.rank),
                       read_columns(projected, head.key_col, head.score.rank),
                       read_columns(projected, head.value_col, values), gate(tape, head),
                       this->field(head_kept, b) + head.kept_offset, d_head, queries, keys, v,
                       d_gate, head_temporaries});
      add_offset_gradient(head.query_offsets, queries, b);
      add_offset_gradient(head.key_offsets, keys, b);
    }
  }

  // dW_in += X̂ᵀ·dP and dW_o += Zᵀ·dOut over every row of the batch.
  void finish_backward(Tape<T>& tape) override {
    const std::ptrdiff_t rows = std::ptrdiff_t(this->batch) * layout.n;
    const int width = layout.width, k = layout.projections;
    if (T* dw_in = this->sink(layout.w_in).grad)
      add_transposed_product<T>({this->field_start(normed), rows, width, width},
                                {this->field_start(projections), rows, k, k}, dw_in, k);
    if (T* dw_o = this->sink(layout.w_o).grad)
      add_transposed_product<T>({this->field_start(mixed), rows, width, width},
                                {tape.grad(this->output).data, rows, width, width}, dw_o, width);
  }

 private:
  static StridedMap<T> columns(MatrixMap<T>& projected, int first, int count) {
    return StridedMap<T>(projected.data() + first, projected.rows(), count,
                         Eigen::OuterStride<>(projected.cols()));
  }
  static ConstStridedMap<T> read_columns(const MatrixMap<T>& projected, int first, int count) {
    return ConstStridedMap<T>(projected.data() + first, projected.rows(), count,
                              Eigen::OuterStride<>(projected.cols()));
  }
  T gate(const Tape<T>& tape, const HeadSlot& head) const {
    return head.gate >= 0 ? this->value_of(tape, head.gate).data[0] : T(1);
  }
  // Q += O (the head's position and bias rows), O shared [1, n, r].
  void add_offsets(const Tape<T>& tape, int input, MatrixMap<T>& projected, int first,
                   int count) const {
    if (input < 0) return;
    columns(projected, first, count) += this->value_of(tape, input).view(0);
  }
  // dO += dQ (this sample's share, into its group's slot).
  void add_offset_gradient(int input, const StridedMap<T>& d_columns, int b) const {
    if (input < 0) return;
    if (T* d = this->sink(input).begin_sample(b))
      MatrixMap<T>(d, d_columns.rows(), d_columns.cols()) += d_columns;
  }
  // out = M·V: dM += dOut·Vᵀ, then dV = Mᵀ·dOut in place of V.
  void fixed_head_backward(Tape<T>& tape, const HeadSlot& head, const ConstStridedMap<T>& d_head,
                           StridedMap<T>& v, T* temporaries, int b) const {
    const int n = layout.n, values = layout.head_values();
    MatrixMap<T> values_transposed(temporaries, values, n);
    MatrixMap<T> d_values(temporaries + std::size_t(values) * n, n, values);
    if (T* dm = this->sink(head.fixed_operator).begin_sample(b)) {
      values_transposed = v.transpose();
      multiply(MatrixMap<T>(dm, n, n), d_head, values_transposed, true);
    }
    multiply_at(d_values, this->value_of(tape, head.fixed_operator).view(0), d_head);
    v = d_values;
  }
};

}  // namespace ufl::model
