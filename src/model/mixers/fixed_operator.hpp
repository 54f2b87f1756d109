#pragma once
// The branch of every input-independent mixer (convolution, fourier, lowrank, linear;
// docs/universality.md §1): M is one n×n matrix per step, built once on the tape from the mixer's
// parameters (ops on shared tensors run in the tape's prelude), and applied to each sample,
//   branch = M·H·W_v,
// by one op whose forward and backward are side by side below. The tape sums each sample's dM
// and dW_v over the batch in fixed order, and dH flows on to the layer below in a stack.
//
// record_fixed_operator() records it either way a layer asks: the composite graph (two matmul
// ops, the reference) or this fused op; both expose M, the same tensor for every sample.
#include "model/mixer.hpp"
#include "tape/keeping_op.hpp"
#include "tape/ops.hpp"
#include "tensor/small_gemm.hpp"

namespace ufl::model {

// One sample's operands, by name.
template <class T>
struct FixedBranchOperands {
  ConstMatrixMap<T> m;    // M (n×n)
  ConstMatrixMap<T> h;    // H (n×d)
  ConstMatrixMap<T> w_v;  // W_v (d×d)
};

// Where one sample's gradients go: dH is added to the input's gradient, dM and dW_v to the shared
// operands' per-group slots; each nullptr when not needed.
template <class T>
struct FixedBranchGradients {
  T *dh, *dm, *dw_v;
};

// One sample: Z = M·H (kept for backward), out = Z·W_v.
template <class T>
void fixed_branch_forward(const FixedBranchOperands<T>& in, MatrixMap<T> z, MatrixMap<T> out) {
  multiply(z, in.m, in.h);
  multiply(out, z, in.w_v);
}

// One sample, from dOut: dW_v += Zᵀ·dOut; dZ = dOut·W_vᵀ; dM += dZ·Hᵀ; dH += Mᵀ·dZ (each
// skipped when its pointer is nullptr). `temporaries` holds n·d + d·n + d·d values.
template <class T>
void fixed_branch_backward(const FixedBranchOperands<T>& in, ConstMatrixMap<T> z,
                           ConstMatrixMap<T> d_out, T* temporaries,
                           const FixedBranchGradients<T>& grads) {
  const Eigen::Index n = in.h.rows(), d = in.h.cols();
  MatrixMap<T> d_z(temporaries, n, d), h_transposed(temporaries + n * d, d, n);
  MatrixMap<T> w_v_transposed(temporaries + 2 * n * d, d, d);
  if (grads.dw_v != nullptr) multiply_at(MatrixMap<T>(grads.dw_v, d, d), z, d_out, true);
  w_v_transposed = in.w_v.transpose();
  multiply(d_z, d_out, w_v_transposed);
  if (grads.dm != nullptr) {
    h_transposed = in.h.transpose();
    multiply(MatrixMap<T>(grads.dm, n, n), d_z, h_transposed, true);
  }
  if (grads.dh != nullptr) multiply_at(MatrixMap<T>(grads.dh, n, d), in.m, d_z, true);
}

// inputs: H [B, n, d]; M [1, n, n]; W_v [1, d, d]. output: the branch [B, n, d].
template <class T>
struct FixedBranchOp : KeepingOp<T> {
  enum Operand : int { kH, kM, kWv };
  static_assert(kH == KeepingOp<T>::kBatched);
  int n = 0, d = 0;

  // Each sample's Z, and per group the backward's temporaries.
  std::size_t kept_size() const override { return std::size_t(n) * d; }
  std::size_t temporaries_size() const override {
    return 2 * std::size_t(n) * d + std::size_t(d) * d;
  }
  MatrixMap<T> z(int b) const { return MatrixMap<T>(this->kept(b), n, d); }
  FixedBranchOperands<T> operands(const Tape<T>& tape, int b) const {
    return {this->value_of(tape, kM).view(0), this->value_of(tape, kH).view(b),
            this->value_of(tape, kWv).view(0)};
  }
  void forward_sample(Tape<T>& tape, int b) override {
    fixed_branch_forward<T>(operands(tape, b), z(b), tape.value(this->output).matrix(b));
  }
  void backward_sample(Tape<T>& tape, int b) override {
    fixed_branch_backward<T>(operands(tape, b), ConstMatrixMap<T>(this->kept(b), n, d),
                             tape.grad(this->output).view(b), this->temporaries(tape, b),
                             {this->sink(kH).begin_sample(b), this->sink(kM).begin_sample(b),
                              this->sink(kWv).begin_sample(b)});
  }
};

// Records M·H·W_v as one op; M and W_v are shared by the batch.
template <class T>
Var fixed_branch(Tape<T>& tape, Var h, Var m, Var w_v, std::string name = "branch") {
  const Shape& sh = tape.shape(h);
  if (tape.shape(m) != Shape{1, sh.rows, sh.rows} || tape.shape(w_v) != Shape{1, sh.cols, sh.cols})
    throw std::logic_error(name + ": M " + tape.shape(m).str() + " and W_v " +
                           tape.shape(w_v).str() + " do not fit H " + sh.str());
  auto op = std::make_unique<FixedBranchOp<T>>();
  op->inputs = {h, m, w_v};  // kH, kM, kWv
  op->n = sh.rows;
  op->d = sh.cols;
  return tape.record(std::move(op), sh, std::move(name));
}

// A transformer head's branch (docs/transformer.md §3): M masked to its lower triangle when
// causal, applied to the head's value slice, M·(H·W_v) (W_v is d×value_cols).
template <class T>
MixerGraph record_fixed_head(Tape<T>& tape, Var h, Var m, Var w_v, const LayerShape& shape) {
  MixerGraph graph;
  graph.kernel = "composite";
  graph.M = shape.causal ? lower_triangular(tape, m, "M") : m;
  graph.out =
      matmul(tape, graph.M, matmul(tape, h, w_v, false, false, "values"), false, false, "branch");
  return graph;
}

// A transformer head of an input-independent mixer as the fused heads kernel takes it: its
// operator, masked to its lower triangle when causal (docs/transformer.md §8).
template <class T>
HeadInputs fixed_head_inputs(Tape<T>& tape, Var m, const LayerShape& shape) {
  HeadInputs inputs;
  inputs.fixed_operator = shape.causal ? lower_triangular(tape, m, "M") : m;
  return inputs;
}

// The branch of an input-independent mixer whose operator `m` [1, n, n] is already on the tape.
template <class T>
MixerGraph record_fixed_operator(Tape<T>& tape, Var h, Var m, Var w_v, LayerKernels kernels,
                                 const LayerShape& shape = {}) {
  if (shape.transformer) return record_fixed_head(tape, h, m, w_v, shape);
  MixerGraph graph;
  graph.M = m;
  if (kernels != LayerKernels::kComposite) {
    graph.kernel = "fused";
    graph.out = fixed_branch(tape, h, m, w_v);
  } else {
    graph.kernel = "composite";
    const Var mixed = matmul(tape, m, h, false, false, "MH");
    graph.out = matmul(tape, mixed, w_v, false, false, "branch");
  }
  return graph;
}

}  // namespace ufl::model
