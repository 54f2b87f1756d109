#pragma once
// The layer and its loss (spec §2) as one tape op: each sample's whole forward, and later its
// whole backward, in one kernel on one thread. It computes exactly what the composite graph of
// model/layer.hpp computes, op by op, but without the tape's per-op passes over memory (each
// op's output written, its gradient zeroed, read back by the next op), which cost more than the
// products at n = 32. The composite graph stays the reference: tests check that both give the
// same loss and gradients, and both against finite differences.
//
// Per sample, with σ = softplus(s) and γ = sigmoid(g) computed once by the tape's prelude:
//   U = X̃A, V = X̃B, S = UΣVᵀ, P = softmax_rows(S), M = (1−γ)S + γP, Z = MX, R = ZW_v − C
//   mse_b   = ‖R‖²_F / (n·d)
//   ortho_b = (‖UᵀU − I‖²_F + ‖VᵀV − I‖²_F) / r²
// The op's output is [B, 1, 2] = (mse_b, ortho_b); the loss is mean_b(mse_b) + λ·mean_b(ortho_b).
#include <Eigen/Core>

#include "tape/ops/broadcast.hpp"
#include "tape/ops/homogeneous_project.hpp"
#include "tensor/small_gemm.hpp"

namespace ufl::model {

// One sample's activations, kept from forward for backward. Row-major, as every tensor.
template <class T>
struct FusedSample {
  MatrixMap<T> U, V, S, P, Z, R, gram_U, gram_V;  // gram_* hold UᵀU − I and VᵀV − I
};

// Sizes of one sample's forward activations and of its backward temporaries.
struct FusedLayout {
  int n, d, r;
  std::size_t forward_size() const {
    return 2 * std::size_t(n) * r + 2 * std::size_t(n) * n + 2 * std::size_t(n) * d +
           2 * std::size_t(r) * r;
  }
  // dY, dZ, Xᵀ (n×d), W_vᵀ (d×d), dM (n×n), UΣ, dUΣ, dV (n×r); forward borrows them for
  // UΣ, M and Vᵀ.
  std::size_t backward_size() const {
    return 3 * std::size_t(n) * d + std::size_t(d) * d + std::size_t(n) * n +
           3 * std::size_t(n) * r;
  }
};

template <class T>
FusedSample<T> fused_sample(T* memory, const FusedLayout& l) {
  T* at = memory;
  auto take = [&at](int rows, int cols) {
    MatrixMap<T> block(at, rows, cols);
    at += std::size_t(rows) * cols;
    return block;
  };
  return FusedSample<T>{take(l.n, l.r), take(l.n, l.r), take(l.n, l.n), take(l.n, l.n),
                        take(l.n, l.d), take(l.n, l.d), take(l.r, l.r), take(l.r, l.r)};
}

// Forward of one sample; returns (mse_b, ortho_b) and keeps the activations in `keep`.
template <class T>
void fused_layer_loss_forward(ConstMatrixMap<T> x, ConstMatrixMap<T> target, ConstMatrixMap<T> a,
                              ConstMatrixMap<T> b, const T* sigma, T gamma, ConstMatrixMap<T> w_v,
                              FusedSample<T>& keep, T* temporaries, T* out) {
  const Eigen::Index n = x.rows(), d = x.cols(), r = a.cols();
  const Eigen::Map<const Eigen::Array<T, 1, Eigen::Dynamic>> sigma_row(sigma, r);
  homogeneous_project_forward<T>(x, a, keep.U);
  homogeneous_project_forward<T>(x, b, keep.V);
  // UΣ, M and Vᵀ live in the backward temporaries, which are free during forward.
  MatrixMap<T> u_sigma(temporaries, n, r), mixer(temporaries + n * r, n, n);
  MatrixMap<T> v_transposed(temporaries + n * r + n * n, r, n);
  u_sigma.array() = keep.U.array().rowwise() * sigma_row;
  v_transposed = keep.V.transpose();
  multiply(keep.S, u_sigma, v_transposed);
  // Row softmax with the row maximum subtracted, so large logits stay finite.
  for (Eigen::Index i = 0; i < n; ++i) {
    const T row_max = keep.S.row(i).maxCoeff();
    keep.P.row(i).array() = (keep.S.row(i).array() - row_max).exp();
    keep.P.row(i) *= T(1) / keep.P.row(i).sum();
  }
  mixer = (T(1) - gamma) * keep.S + gamma * keep.P;
  multiply(keep.Z, mixer, x);
  multiply(keep.R, keep.Z, w_v);
  keep.R -= target;
  multiply_at(keep.gram_U, keep.U, keep.U);
  keep.gram_U.diagonal().array() -= T(1);
  multiply_at(keep.gram_V, keep.V, keep.V);
  keep.gram_V.diagonal().array() -= T(1);
  out[0] = keep.R.squaredNorm() / T(n * d);
  out[1] = (keep.gram_U.squaredNorm() + keep.gram_V.squaredNorm()) / T(r * r);
}

// Gradients of one sample. weight_mse and weight_ortho are ∂loss/∂mse_b and ∂loss/∂ortho_b.
// Shared-parameter gradients are added into the given per-sample slots (nullptr: not needed).
template <class T>
void fused_layer_loss_backward(ConstMatrixMap<T> x, ConstMatrixMap<T> a, const T* sigma, T gamma,
                               ConstMatrixMap<T> w_v, const FusedSample<T>& keep, T weight_mse,
                               T weight_ortho, T* temporaries, T* da, T* db, T* dsigma, T* dgamma,
                               T* dw_v) {
  const Eigen::Index n = x.rows(), d = x.cols(), r = a.cols();
  const Eigen::Map<const Eigen::Array<T, 1, Eigen::Dynamic>> sigma_row(sigma, r);
  T* at = temporaries;
  auto take = [&at](Eigen::Index rows, Eigen::Index cols) {
    MatrixMap<T> block(at, rows, cols);
    at += std::size_t(rows) * cols;
    return block;
  };
  MatrixMap<T> d_y = take(n, d), d_z = take(n, d), x_transposed = take(d, n);
  MatrixMap<T> w_v_transposed = take(d, d), d_m = take(n, n);
  MatrixMap<T> u_sigma = take(n, r), d_u = take(n, r), d_v = take(n, r);

  // mse_b = ‖ZW_v − C‖²/(nd): dY = 2R/(nd); dW_v = ZᵀdY; dZ = dY·W_vᵀ; dM = dZ·Xᵀ.
  d_y = (T(2) * weight_mse / T(n * d)) * keep.R;
  if (dw_v != nullptr) multiply_at(MatrixMap<T>(dw_v, d, d), keep.Z, d_y, true);
  w_v_transposed = w_v.transpose();
  multiply(d_z, d_y, w_v_transposed);
  x_transposed = x.transpose();
  multiply(d_m, d_z, x_transposed);
  // M = (1−γ)S + γP: dγ = Σ dM⊙(P − S); dS = (1−γ)dM + softmax backward of γ·dM, in place.
  if (dgamma != nullptr) *dgamma += (d_m.array() * (keep.P.array() - keep.S.array())).sum();
  for (Eigen::Index i = 0; i < n; ++i) {
    const T inner = d_m.row(i).dot(keep.P.row(i));
    d_m.row(i).array() = (T(1) - gamma) * d_m.row(i).array() +
                         gamma * keep.P.row(i).array() * (d_m.row(i).array() - inner);
  }
  // S = (UΣ)Vᵀ: d(UΣ) = dS·V, dV = dSᵀ·UΣ; dσ = column sums of d(UΣ)⊙U; dU = d(UΣ)·Σ.
  u_sigma.array() = keep.U.array().rowwise() * sigma_row;
  multiply(d_u, d_m, keep.V);
  multiply_at(d_v, d_m, u_sigma);
  // Row by row, so each step is one contiguous vector operation (column sums of a row-major
  // matrix written as .colwise().sum() walk it column by column).
  for (Eigen::Index i = 0; i < n; ++i) {
    T* d_u_row = d_u.data() + i * r;
    const T* u_row = keep.U.data() + i * r;
    if (dsigma != nullptr)
      for (Eigen::Index k = 0; k < r; ++k) dsigma[k] += d_u_row[k] * u_row[k];
    for (Eigen::Index k = 0; k < r; ++k) d_u_row[k] *= sigma[k];
  }
  // ortho_b: ∂‖UᵀU − I‖²/∂U = 4U(UᵀU − I), over r².
  const T ortho_scale = T(4) * weight_ortho / T(r * r);
  multiply(d_u, keep.U, keep.gram_U, true, ortho_scale);
  multiply(d_v, keep.V, keep.gram_V, true, ortho_scale);
  // U = X·A_content + A_position + 1·a_biasᵀ, likewise V with B (without dX, A only gives the
  // shapes, which B shares).
  homogeneous_project_backward<T>(x, a, ConstMatrixMap<T>(d_u.data(), n, r), nullptr, da);
  homogeneous_project_backward<T>(x, a, ConstMatrixMap<T>(d_v.data(), n, r), nullptr, db);
}

// inputs: X, C [B, n, d]; A, B [1, d+n+1, r]; σ [1, 1, r]; γ [1, 1, 1]; W_v [1, d, d].
template <class T>
struct FusedLayerLossOp : Op<T> {
  FusedLayout layout{};

  // Each sample's activations, then one set of temporaries per sample group: a group's
  // samples run one after another on one thread, so they reuse it while it is in cache.
  std::size_t extra_scratch_elements(const Tape<T>& tape) const override {
    return std::size_t(tape.shape(this->inputs[0]).batch) * layout.forward_size() +
           std::size_t(tape.group_count()) * layout.backward_size();
  }
  T* activations(int b) const { return this->scratch + std::size_t(b) * layout.forward_size(); }
  T* temporaries(const Tape<T>& tape, int b) const {
    return this->scratch + std::size_t(tape.shape(this->inputs[0]).batch) * layout.forward_size() +
           std::size_t(b / tape.group_size()) * layout.backward_size();
  }
  void forward_sample(Tape<T>& tape, int b) override {
    FusedSample<T> keep = fused_sample(activations(b), layout);
    fused_layer_loss_forward<T>(
        tape.value(this->inputs[0]).view(b), tape.value(this->inputs[1]).view(b),
        tape.value(this->inputs[2]).view(0), tape.value(this->inputs[3]).view(0),
        tape.value(this->inputs[4]).data, tape.value(this->inputs[5]).data[0],
        tape.value(this->inputs[6]).view(0), keep, temporaries(tape, b),
        tape.value(this->output).sample(b));
  }
  void backward_sample(Tape<T>& tape, int b) override {
    FusedSample<T> keep = fused_sample(activations(b), layout);
    const T* d_out = tape.grad(this->output).sample(b);
    fused_layer_loss_backward<T>(
        tape.value(this->inputs[0]).view(b), tape.value(this->inputs[2]).view(0),
        tape.value(this->inputs[4]).data, tape.value(this->inputs[5]).data[0],
        tape.value(this->inputs[6]).view(0), keep, d_out[0], d_out[1], temporaries(tape, b),
        this->sinks[2].begin_sample(b), this->sinks[3].begin_sample(b),
        this->sinks[4].begin_sample(b), this->sinks[5].begin_sample(b),
        this->sinks[6].begin_sample(b));
  }
};

// Records the fused layer + loss; returns the per-sample (mse_b, ortho_b) as [B, 1, 2].
template <class T>
Var fused_layer_loss(Tape<T>& tape, Var x, Var target, Var a, Var b, Var sigma, Var gamma, Var w_v,
                     std::string name = "layer_loss") {
  const Shape& sx = tape.shape(x);
  const Shape& sa = tape.shape(a);
  if (tape.needs_grad(x) || tape.needs_grad(target))
    throw std::logic_error(name + ": gradients with respect to X and C are not computed");
  if (tape.shape(target) != sx || tape.shape(b) != sa || sa.batch != 1 ||
      sa.rows != sx.cols + sx.rows + 1 || tape.shape(sigma).size() != std::size_t(sa.cols) ||
      tape.shape(gamma).size() != 1 || tape.shape(w_v) != Shape{1, sx.cols, sx.cols})
    throw std::logic_error(name + ": shapes do not fit X " + sx.str() + " and A " + sa.str());
  auto op = std::make_unique<FusedLayerLossOp<T>>();
  op->inputs = {x, target, a, b, sigma, gamma, w_v};
  op->layout = FusedLayout{sx.rows, sx.cols, sa.cols};
  return tape.record(std::move(op), Shape{sx.batch, 1, 2}, std::move(name));
}

}  // namespace ufl::model
