#pragma once
// A per-sample op that keeps activations from forward for backward laid out field by field
// (docs/transformer.md §8): field f holds every sample's slice one after another, so once every
// sample's backward has run the op can read a field of the whole batch as one (B·rows)×cols
// matrix, for its weight gradients (Op::sums_batch_gradient, Op::finish_backward). After the
// fields: the op's per-step buffers (its weights transposed, and copied into the product kernel's
// panel layout, once per step, not once per sample: PackedWeight). Its temporaries are its
// share of the tape's workspace of each sample group (Tape::group_workspace; the group's samples
// run on one thread, op after op): some for the group's rows at once, some for one sample at a
// time.
#include <cstddef>
#include <vector>

#include "tape/tape.hpp"
#include "tensor/batch_product.hpp"
#include "tensor/small_gemm.hpp"

namespace ufl {

// A weight as every sample's products read it in one step: the kernel's panels of W (for the
// forward's x·W), and Wᵀ with its panels (for the backward's dy·Wᵀ), made once per step in the
// op's per-step buffer (BatchedOp::add_packed_weight).
struct PackedWeight {
  std::ptrdiff_t rows = 0, cols = 0;
  std::size_t panels = 0, transposed = 0, transposed_panels = 0;  // offsets in per_step()
};

template <class T>
struct BatchedOp : Op<T> {
  int batch = 1;                           // samples; set by the op's builder
  std::size_t per_step_size = 0;           // elements of the per-step buffers
  std::size_t temporaries_per_sample = 0;  // a group's temporaries: this per sample of the group
  std::size_t temporaries_shared = 0;      // and this once (what one sample at a time needs)

  // Declares a field of `size` elements per sample; returns its index.
  int add_field(std::size_t size) {
    field_sizes_.push_back(size);
    return static_cast<int>(field_sizes_.size()) - 1;
  }
  std::size_t extra_scratch_elements(const Tape<T>&) const override {
    return field_offset(static_cast<int>(field_sizes_.size())) + padded(per_step_size);
  }
  std::size_t group_workspace_elements(const Tape<T>& tape) const override {
    return group_temporaries(tape);
  }
  // Declares a per-step buffer of `size` elements, 64-byte aligned; returns its offset in
  // per_step().
  std::size_t add_per_step(std::size_t size) {
    const std::size_t offset = per_step_size;
    per_step_size += padded(size);
    return offset;
  }
  // Declares the per-step copies of a rows×cols weight (PackedWeight).
  PackedWeight add_packed_weight(std::ptrdiff_t rows, std::ptrdiff_t cols) {
    PackedWeight weight{rows, cols};
    weight.panels = add_per_step(packed_size<T>(rows, cols));
    weight.transposed = add_per_step(std::size_t(rows) * std::size_t(cols));
    weight.transposed_panels = add_per_step(packed_size<T>(cols, rows));
    return weight;
  }
  // W's panels, made now (prepare_forward), and W as the forward's products read it.
  PackedOperand<T> pack_forward(const PackedWeight& weight, const ConstMatrixMap<T>& w) const {
    return pack_weight<T>(w.data(), weight.rows, weight.cols, w.outerStride(),
                          per_step() + weight.panels);
  }
  // W as the forward's products read it (its panels made by pack_forward this step).
  PackedOperand<T> forward_operand(const PackedWeight& weight, const ConstMatrixMap<T>& w) const {
    return {w.data(), weight.rows, weight.cols, w.outerStride(), per_step() + weight.panels};
  }
  // Wᵀ and its panels, made now (prepare_backward).
  void pack_backward(const PackedWeight& weight, const ConstMatrixMap<T>& w) const {
    transpose_into(w, per_step() + weight.transposed);
    pack_weight<T>(per_step() + weight.transposed, weight.cols, weight.rows, weight.rows,
                   per_step() + weight.transposed_panels);
  }
  // Wᵀ as the backward's products read it (made by pack_backward this step).
  PackedOperand<T> backward_operand(const PackedWeight& weight) const {
    return {per_step() + weight.transposed, weight.cols, weight.rows, weight.rows,
            per_step() + weight.transposed_panels};
  }

  // Field f for the whole batch, and sample b's slice of it.
  T* field_start(int f) const { return this->scratch + field_offset(f); }
  T* field(int f, int b) const { return field_start(f) + std::size_t(b) * field_sizes_[f]; }
  T* per_step() const { return field_start(static_cast<int>(field_sizes_.size())); }
  // The temporaries of sample b's group: temporaries_per_sample × the group's size, then
  // temporaries_shared; valid during one forward or backward call on the group.
  T* temporaries(const Tape<T>& tape, int b) const { return tape.group_workspace(b); }
  T* shared_temporaries(const Tape<T>& tape, int b) const {
    return temporaries(tape, b) + padded(std::size_t(tape.group_size()) * temporaries_per_sample);
  }

 private:
  // Each field, and what follows the fields, starts 64-byte aligned.
  static std::size_t padded(std::size_t size) { return (size + 15) / 16 * 16; }
  std::size_t group_temporaries(const Tape<T>& tape) const {
    return padded(std::size_t(tape.group_size()) * temporaries_per_sample) +
           padded(temporaries_shared);
  }
  std::size_t field_offset(int f) const {
    std::size_t offset = 0;
    for (int g = 0; g < f; ++g) offset += padded(std::size_t(batch) * field_sizes_[g]);
    return offset;
  }
  std::vector<std::size_t> field_sizes_;
};

}  // namespace ufl
