#pragma once
// The universal mixer's structured kernel: fewer FLOPs by using the structure of X̃ = [H, I, 1].
//
// X̃ has only d content columns; the identity and the ones column are the same for every sample.
// Folding the bias row into the position rows (1 = Σ_i e_i, so A'_p = A_p + 1·a_biasᵀ):
//   U = H·A_c + A'_p,   V = H·B_c + B'_p,
//   S = UΣVᵀ = (H·Ω_cc + Ω_pc)·Hᵀ + H·Ω_cp + Ω_pp,
// with the blocks of the bilinear form (seed 003), computed once per step in O((n+d)²r):
//   Ω_cc = A_cΣB_cᵀ (d×d), Ω_cp = A_cΣB'_pᵀ (d×n), Ω_pc = A'_pΣB_cᵀ (n×d), Ω_pp = A'_pΣB'_pᵀ (n×n).
// Each sample then costs O(nd² + n²d) instead of the dense kernel's O(n²r + nr² + ndr). The
// orthogonality penalty ‖UᵀU − I‖²_F = ‖UUᵀ‖²_F − 2·tr(UUᵀ) + r needs no n×n matrix at all:
// UUᵀ = X̃ÃÃᵀX̃ᵀ is Φ_pp plus a product of two n×2d matrices (see GramKeep; likewise V with
// Ψ = B̃B̃ᵀ). The backward accumulates the blocks' gradients over the batch (the tape sums the
// per-group slots in fixed order) and maps them to A, B and σ once per step. Per sample:
// 40nd² + 10n²d FLOPs forward, 42nd² + 10n²d backward (+ 6nd² + 10n²d for dH inside a stack).
//
// It computes the same loss and gradients as the dense fused kernel and the composite graph (tests
// check both to 1e-12 in double); which kernel a run uses is chosen by a cost model
// (choose_universal_kernel) and recorded in the manifest.
#include <algorithm>

#include "model/mixer.hpp"
#include "model/mixers/score_core.hpp"
#include "tape/keeping_op.hpp"
#include "tape/ops.hpp"
#include "tensor/small_gemm.hpp"

namespace ufl::model {

// A factorized mixer's kernel inputs on the tape, as the dense and structured kernels take them:
// A, B [1, d+n+1, r], σ [1, 1, r], γ [1, 1, 1] (invalid: the gate is open, γ = 1, the attention
// mixer) and W_v [1, d, d].
struct FactorOperands {
  Var a, b, sigma, gamma, w_v;
};

// ---- FLOPs and the choice between the kernels --------------------------------------------------

// FLOPs of one sample's forward and backward (matrix products only, 2·m·n·k each), and of the
// per-step work of the structured kernel (its blocks and their backward), in each kernel.
struct KernelCost {
  double dense_per_sample, structured_per_sample, structured_per_step;
};

inline KernelCost universal_kernel_cost(double n, double d, double r, bool with_dh) {
  KernelCost cost;
  cost.dense_per_sample = 8 * n * d * r + 6 * n * n * r + 4 * n * n * d + 6 * n * d * d +
                          8 * n * r * r + (with_dh ? 2 * n * n * d + 4 * n * d * r : 0.0);
  cost.structured_per_sample =
      82 * n * d * d + 20 * n * n * d + (with_dh ? 6 * n * d * d + 10 * n * n * d : 0.0);
  // forward: Ω, Φ, Ψ (3 products of (d+n)×r by r×(d+n)); backward: 2 per family.
  cost.structured_per_step = 9 * 2 * (n + d) * (n + d) * r;
  return cost;
}

// The structured kernel multiplies smaller operands (inner dimension d or 2d) and does the same
// elementwise softmax work, so it must save a clear share of the FLOPs to be faster: it is chosen
// when it needs at most half of the dense kernel's (measured: bench/run_bench.sh --kernels).
inline constexpr double kStructuredFlopShare = 0.5;

inline bool structured_pays(int n, int d, int r, int batch, bool with_dh) {
  const KernelCost cost = universal_kernel_cost(n, d, r, with_dh);
  return cost.structured_per_sample + cost.structured_per_step / batch <=
         kStructuredFlopShare * cost.dense_per_sample;
}

// ---- the blocks of Ω, Φ and Ψ, once per step ---------------------------------------------------

// c (+)= a·b, split into fixed chunks of c's rows that run in parallel: the split never depends on
// the thread count, so neither does any element of the result. Eigen runs each chunk on one thread.
template <class C, class A, class B>
void chunked_product(C&& c, const A& a, const B& b, bool accumulate) {
  constexpr Eigen::Index kChunk = 64;
  const Eigen::Index rows = c.rows();
  const Eigen::Index chunks = (rows + kChunk - 1) / kChunk;
  const bool large = double(rows) * double(c.cols()) * double(a.cols()) > 4e6;
#pragma omp parallel for schedule(static) if (chunks > 1 && large)
  for (Eigen::Index k = 0; k < chunks; ++k) {
    const Eigen::Index first = k * kChunk, count = std::min(kChunk, rows - first);
    if (accumulate)
      c.middleRows(first, count).noalias() += a.middleRows(first, count) * b;
    else
      c.middleRows(first, count).noalias() = a.middleRows(first, count) * b;
  }
}

// The twelve blocks, in the order of the op's outputs.
enum UniversalBlock : int {
  kOmegaCC,
  kOmegaCP,
  kOmegaPC,
  kOmegaPP,
  kPhiCC,
  kPhiCP,
  kPhiPC,
  kPhiPP,
  kPsiCC,
  kPsiCP,
  kPsiPC,
  kPsiPP,
  kPhiPPSquaredNorm,  // the per-step scalars of the Gram families (see GramKeep)
  kPhiPPTrace,
  kPsiPPSquaredNorm,
  kPsiPPTrace,
  kBlockCount
};

// inputs: A, B [1, d+n+1, r], σ [1, 1, r]. outputs: the blocks of Ω = ÃΣB̃ᵀ, Φ = ÃÃᵀ and
// Ψ = B̃B̃ᵀ, Ã = [A_c; A'_p] the folded A, and ‖Φ_pp‖²_F, tr Φ_pp, ‖Ψ_pp‖²_F, tr Ψ_pp. A shared op:
// it runs once per step, before the batch (forward) and after it (backward).
template <class T>
struct UniversalBlocksOp : Op<T> {
  enum Operand : int { kA, kB, kSigma };  // its inputs (and sinks) by name
  int n = 0, d = 0, r = 0;

  // A'_p, B'_p, A_cΣ, A'_pΣ, B_cΣ, B'_pΣ and, for backward, d(A_cΣ), d(A'_pΣ), dB_c, dB'_p and
  // the Φ/Ψ gradients of A_c, A'_p, B_c, B'_p.
  std::size_t extra_scratch_elements(const Tape<T>&) const override {
    return std::size_t(10) * n * r + std::size_t(8) * d * r;
  }
  struct Work {
    MatrixMap<T> a_p, b_p, a_c_sigma, a_p_sigma, b_c_sigma, b_p_sigma;
    MatrixMap<T> d_a_c_sigma, d_a_p_sigma, d_b_c, d_b_p, d_a_c, d_a_p, d_b_c_gram, d_b_p_gram;
  };
  Work work() const {
    T* at = this->scratch;
    auto take = [&at](int rows, int cols) {
      MatrixMap<T> block(at, rows, cols);
      at += std::size_t(rows) * cols;
      return block;
    };
    return Work{take(n, r), take(n, r), take(d, r), take(n, r), take(d, r), take(n, r), take(d, r),
                take(n, r), take(d, r), take(n, r), take(d, r), take(n, r), take(d, r), take(n, r)};
  }
  MatrixMap<T> block(Tape<T>& tape, int index) const {
    const Var var = index == 0 ? this->output : this->extra_outputs[index - 1];
    return tape.value(var).matrix(0);
  }
  MatrixMap<T> block_grad(Tape<T>& tape, int index) const {
    const Var var = index == 0 ? this->output : this->extra_outputs[index - 1];
    return tape.grad(var).matrix(0);
  }

  void forward_sample(Tape<T>& tape, int) override {
    const auto a = this->value_of(tape, kA).view(0);
    const auto b = this->value_of(tape, kB).view(0);
    const Eigen::Map<const Eigen::Array<T, 1, Eigen::Dynamic>> sigma(
        this->value_of(tape, kSigma).data, r);
    Work w = work();
    const auto a_c = a.topRows(d), b_c = b.topRows(d);
    w.a_p = a.middleRows(d, n).rowwise() + a.row(d + n);  // A'_p = A_p + 1·a_biasᵀ
    w.b_p = b.middleRows(d, n).rowwise() + b.row(d + n);
    w.a_c_sigma.array() = a_c.array().rowwise() * sigma;
    w.a_p_sigma.array() = w.a_p.array().rowwise() * sigma;
    w.b_c_sigma.array() = b_c.array().rowwise() * sigma;
    w.b_p_sigma.array() = w.b_p.array().rowwise() * sigma;
    chunked_product(block(tape, kOmegaCC), w.a_c_sigma, b_c.transpose(), false);
    chunked_product(block(tape, kOmegaCP), w.a_c_sigma, w.b_p.transpose(), false);
    chunked_product(block(tape, kOmegaPC), w.a_p_sigma, b_c.transpose(), false);
    chunked_product(block(tape, kOmegaPP), w.a_p_sigma, w.b_p.transpose(), false);
    chunked_product(block(tape, kPhiCC), a_c, a_c.transpose(), false);
    chunked_product(block(tape, kPhiCP), a_c, w.a_p.transpose(), false);
    chunked_product(block(tape, kPhiPC), w.a_p, a_c.transpose(), false);
    chunked_product(block(tape, kPhiPP), w.a_p, w.a_p.transpose(), false);
    chunked_product(block(tape, kPsiCC), b_c, b_c.transpose(), false);
    chunked_product(block(tape, kPsiCP), b_c, w.b_p.transpose(), false);
    chunked_product(block(tape, kPsiPC), w.b_p, b_c.transpose(), false);
    chunked_product(block(tape, kPsiPP), w.b_p, w.b_p.transpose(), false);
    for (auto [pp, squared_norm, trace] : {std::tuple{kPhiPP, kPhiPPSquaredNorm, kPhiPPTrace},
                                           std::tuple{kPsiPP, kPsiPPSquaredNorm, kPsiPPTrace}}) {
      block(tape, squared_norm)(0, 0) = block(tape, pp).squaredNorm();
      block(tape, trace)(0, 0) = block(tape, pp).trace();
    }
  }

  void backward_sample(Tape<T>& tape, int) override {
    T* da = this->sink(kA).begin_sample(0);
    T* db = this->sink(kB).begin_sample(0);
    T* dsigma = this->sink(kSigma).begin_sample(0);
    const auto a = this->value_of(tape, kA).view(0);
    const auto b = this->value_of(tape, kB).view(0);
    const T* sigma = this->value_of(tape, kSigma).data;
    Work w = work();
    const auto a_c = a.topRows(d), b_c = b.topRows(d);
    auto g = [&](int index) { return block_grad(tape, index); };
    // The scalars first: ∂‖pp‖²_F/∂pp = 2·pp, ∂tr pp/∂pp = I.
    for (auto [pp, squared_norm, trace] : {std::tuple{kPhiPP, kPhiPPSquaredNorm, kPhiPPTrace},
                                           std::tuple{kPsiPP, kPsiPPSquaredNorm, kPsiPPTrace}}) {
      g(pp) += (T(2) * g(squared_norm)(0, 0)) * block(tape, pp);
      g(pp).diagonal().array() += g(trace)(0, 0);
    }
    // Ω_xy = (XΣ)·Yᵀ: d(XΣ) = dΩ·Y, dY = dΩᵀ·(XΣ).
    chunked_product(w.d_a_c_sigma, g(kOmegaCC), b_c, false);
    chunked_product(w.d_a_c_sigma, g(kOmegaCP), w.b_p, true);
    chunked_product(w.d_a_p_sigma, g(kOmegaPC), b_c, false);
    chunked_product(w.d_a_p_sigma, g(kOmegaPP), w.b_p, true);
    chunked_product(w.d_b_c, g(kOmegaCC).transpose(), w.a_c_sigma, false);
    chunked_product(w.d_b_c, g(kOmegaPC).transpose(), w.a_p_sigma, true);
    chunked_product(w.d_b_p, g(kOmegaCP).transpose(), w.a_c_sigma, false);
    chunked_product(w.d_b_p, g(kOmegaPP).transpose(), w.a_p_sigma, true);
    // Φ_xy = X·Yᵀ over X, Y ∈ {A_c, A'_p}: dX += dΦ_xy·Y and dY += dΦ_xyᵀ·X (likewise Ψ, B).
    auto gram_backward = [&](int cc, int cp, int pc, int pp, const auto& x_c, const auto& x_p,
                             MatrixMap<T> d_x_c, MatrixMap<T> d_x_p) {
      chunked_product(d_x_c, g(cc), x_c, false);
      chunked_product(d_x_c, g(cc).transpose(), x_c, true);
      chunked_product(d_x_c, g(cp), x_p, true);
      chunked_product(d_x_c, g(pc).transpose(), x_p, true);
      chunked_product(d_x_p, g(pc), x_c, false);
      chunked_product(d_x_p, g(cp).transpose(), x_c, true);
      chunked_product(d_x_p, g(pp), x_p, true);
      chunked_product(d_x_p, g(pp).transpose(), x_p, true);
    };
    gram_backward(kPhiCC, kPhiCP, kPhiPC, kPhiPP, a_c, w.a_p, w.d_a_c, w.d_a_p);
    gram_backward(kPsiCC, kPsiCP, kPsiPC, kPsiPP, b_c, w.b_p, w.d_b_c_gram, w.d_b_p_gram);
    // XΣ: dσ_k = Σ_i X_ik·d(XΣ)_ik, dX = d(XΣ)·Σ. Then unfold A'_p = A_p + 1·a_biasᵀ.
    if (dsigma != nullptr)
      for (int k = 0; k < r; ++k)
        dsigma[k] += (a_c.col(k).cwiseProduct(w.d_a_c_sigma.col(k))).sum() +
                     (w.a_p.col(k).cwiseProduct(w.d_a_p_sigma.col(k))).sum();
    auto unfold = [&](T* grad, const MatrixMap<T>& d_c_sigma, const MatrixMap<T>& d_p_sigma,
                      const MatrixMap<T>& d_c_gram, const MatrixMap<T>& d_p_gram, bool scaled) {
      if (grad == nullptr) return;
      MatrixMap<T> out(grad, d + n + 1, r);
      for (int k = 0; k < r; ++k) {
        const T scale = scaled ? sigma[k] : T(1);
        out.col(k).head(d) += scale * d_c_sigma.col(k) + d_c_gram.col(k);
        out.col(k).segment(d, n) += scale * d_p_sigma.col(k) + d_p_gram.col(k);
        out(d + n, k) += scale * d_p_sigma.col(k).sum() + d_p_gram.col(k).sum();
      }
    };
    unfold(da, w.d_a_c_sigma, w.d_a_p_sigma, w.d_a_c, w.d_a_p, true);
    unfold(db, w.d_b_c, w.d_b_p, w.d_b_c_gram, w.d_b_p_gram, false);
  }
};

// Records the blocks; returns them in UniversalBlock order.
template <class T>
std::vector<Var> universal_blocks(Tape<T>& tape, Var a, Var b, Var sigma, int n, int d,
                                  const std::string& name) {
  const int r = tape.shape(a).cols;
  auto op = std::make_unique<UniversalBlocksOp<T>>();
  op->inputs = {a, b, sigma};  // kA, kB, kSigma
  op->n = n, op->d = d, op->r = r;
  std::vector<std::pair<Shape, std::string>> outputs;
  const char* families[] = {"Omega", "Phi", "Psi"};
  for (const char* family : families)
    for (auto [rows, cols, part] : {std::tuple<int, int, const char*>{d, d, "_cc"},
                                    {d, n, "_cp"},
                                    {n, d, "_pc"},
                                    {n, n, "_pp"}})
      outputs.push_back({Shape{1, rows, cols}, name + "_" + family + part});
  for (const char* scalar :
       {"_Phi_pp_squared_norm", "_Phi_pp_trace", "_Psi_pp_squared_norm", "_Psi_pp_trace"})
    outputs.push_back({Shape{1, 1, 1}, name + scalar});
  return tape.record_outputs(std::move(op), std::move(outputs));
}

// ---- the per-sample kernel ---------------------------------------------------------------------

// The penalty's half for one factor, from its Gram family (Φ = ÃÃᵀ for U, Ψ = B̃B̃ᵀ for V), never
// forming an n×n matrix. G = UUᵀ = pp + P·Qᵀ with P = [H | pc], Q = [T | H], T = H·cc + pc
// (cc and pp are symmetric and cp = pcᵀ, as in any Gram matrix). With K = pp·H:
//   ‖UᵀU − I‖²_F = ‖G‖²_F − 2·tr G + r,
//   ‖G‖²_F = ‖pp‖²_F + 2⟨K, T + pc⟩ + ⟨PᵀP, QᵀQ⟩,   tr G = tr pp + ⟨P, Q⟩,
// where ‖pp‖²_F and tr pp are the same for every sample (the blocks op computes them once).
// Per sample: 2n²d + 18nd² FLOPs forward, the same backward (+ 2n²d for dH).
template <class T>
struct GramKeep {
  MatrixMap<T> t, k, ptp, qtq;  // T, K (n×d); PᵀP, QᵀQ (2d×2d)
};

// One sample's activations kept for backward.
template <class T>
struct StructuredSample {
  MatrixMap<T> S, P, Z, T_S;  // T_S = H·Ω_cc + Ω_pc
  GramKeep<T> u, v;
};

struct StructuredLayout {
  int n, d;
  std::size_t forward_size() const {
    return 2 * std::size_t(n) * n + 2 * std::size_t(n) * d +
           2 * (2 * std::size_t(n) * d + 8 * std::size_t(d) * d);
  }
  // Hᵀ (d×n), [T|H] (n×2d), [Hᵀ; cp] (2d×n), M then dM (n×n), dZ, dT, cpᵀ (n×d), W_vᵀ and ccᵀ
  // (d×d), P, Q, dP, dQ (n×2d), dK (n×d).
  std::size_t backward_size() const {
    return std::size_t(n) * n + 17 * std::size_t(n) * d + 2 * std::size_t(d) * d;
  }
};

// Consecutive blocks of a buffer.
template <class T>
struct Carver {
  T* at;
  MatrixMap<T> take(Eigen::Index rows, Eigen::Index cols) {
    MatrixMap<T> block(at, rows, cols);
    at += std::size_t(rows) * cols;
    return block;
  }
};

template <class T>
StructuredSample<T> structured_sample(T* memory, const StructuredLayout& l) {
  Carver<T> c{memory};
  auto gram = [&] {
    return GramKeep<T>{c.take(l.n, l.d), c.take(l.n, l.d), c.take(2 * l.d, 2 * l.d),
                       c.take(2 * l.d, 2 * l.d)};
  };
  StructuredSample<T> keep{c.take(l.n, l.n), c.take(l.n, l.n), c.take(l.n, l.d),
                           c.take(l.n, l.d), gram(),           gram()};
  return keep;
}

// The blocks one family (Ω, Φ or Ψ) contributes to a sample: X·cc·Xᵀ + X·cp + pc·Xᵀ + pp.
template <class T>
struct BlockViews {
  ConstMatrixMap<T> cc, cp, pc, pp;
};

template <class T>
struct StructuredTemporaries {
  MatrixMap<T> h_t, left, right, mixer, d_z, d_t, cp_t, w_v_t, cc_t, p, q, d_p, d_q, d_k;
};

template <class T>
StructuredTemporaries<T> structured_temporaries(T* memory, int n, int d) {
  Carver<T> c{memory};
  return StructuredTemporaries<T>{
      c.take(d, n),     c.take(n, 2 * d), c.take(2 * d, n), c.take(n, n), c.take(n, d),
      c.take(n, d),     c.take(n, d),     c.take(d, d),     c.take(d, d), c.take(n, 2 * d),
      c.take(n, 2 * d), c.take(n, 2 * d), c.take(n, 2 * d), c.take(n, d)};
}

// Row-major matrices side by side, [left | right] (n×2d) from two n×d ones, and back. Plain loops:
// Eigen's block assignment costs more per row than copying a row of d floats.
template <class T, class Left, class Right>
void join_columns(MatrixMap<T> out, const Left& left, const Right& right) {
  const Eigen::Index rows = out.rows(), d = left.cols();
  for (Eigen::Index i = 0; i < rows; ++i) {
    T* row = out.data() + i * out.outerStride();
    const T* l = left.data() + i * left.outerStride();
    const T* r = right.data() + i * right.outerStride();
    for (Eigen::Index j = 0; j < d; ++j) row[j] = l[j];
    for (Eigen::Index j = 0; j < d; ++j) row[d + j] = r[j];
  }
}

// out += α·(half `half` (0: left, 1: right) of the n×2d matrix `joined`).
template <class T>
void add_half(MatrixMap<T> out, const MatrixMap<T>& joined, int half, T alpha = T(1)) {
  const Eigen::Index rows = out.rows(), d = out.cols();
  for (Eigen::Index i = 0; i < rows; ++i) {
    T* row = out.data() + i * d;
    const T* from = joined.data() + i * joined.outerStride() + half * d;
    for (Eigen::Index j = 0; j < d; ++j) row[j] += alpha * from[j];
  }
}

// out = pp + (H·cc + pc)·Hᵀ + H·cp as one product [T | H]·[Hᵀ; cp]; keeps T = H·cc + pc.
template <class T>
void structured_bilinear(ConstMatrixMap<T> h, const BlockViews<T>& blocks,
                         StructuredTemporaries<T>& tmp, MatrixMap<T> keep_t, MatrixMap<T> out) {
  const Eigen::Index d = h.cols();
  multiply(keep_t, h, blocks.cc);
  keep_t += blocks.pc;
  join_columns(tmp.left, keep_t, h);
  tmp.right.topRows(d) = tmp.h_t;
  tmp.right.bottomRows(d) = blocks.cp;
  out = blocks.pp;
  multiply(out, tmp.left, tmp.right, true);
}

// The per-step scalars of one Gram family: ‖pp‖²_F and tr pp.
template <class T>
struct GramScalars {
  T pp_squared_norm, pp_trace;
};

// Fills P = [H | pc] and Q = [T | H] (T already in keep.t).
template <class T>
void gram_operands(ConstMatrixMap<T> h, const BlockViews<T>& blocks, const GramKeep<T>& keep,
                   StructuredTemporaries<T>& tmp) {
  join_columns(tmp.p, h, blocks.pc);
  join_columns(tmp.q, keep.t, h);
}

// ‖UᵀU − I‖²_F of one factor, from its family (see GramKeep).
template <class T>
T gram_family_forward(ConstMatrixMap<T> h, const BlockViews<T>& blocks,
                      const GramScalars<T>& scalars, int r, GramKeep<T>& keep,
                      StructuredTemporaries<T>& tmp) {
  multiply(keep.t, h, blocks.cc);
  keep.t += blocks.pc;
  multiply(keep.k, blocks.pp, h);
  gram_operands(h, blocks, keep, tmp);
  multiply_at(keep.ptp, tmp.p, tmp.p);
  multiply_at(keep.qtq, tmp.q, tmp.q);
  const T squared_norm = scalars.pp_squared_norm +
                         T(2) * (keep.k.array() * (keep.t + blocks.pc).array()).sum() +
                         (keep.ptp.array() * keep.qtq.array()).sum();
  const T trace = scalars.pp_trace + (tmp.p.array() * tmp.q.array()).sum();
  return squared_norm - T(2) * trace + T(r);
}

// Where one family's gradients go (per-group slots of the shared blocks; nullptr: none).
template <class T>
struct BlockGrads {
  T *cc, *cp, *pc, *pp;
};

// The scalar gradients of one Gram family (per-group slots; nullptr: none).
template <class T>
struct ScalarGrads {
  T *squared_norm, *trace;
};

// Backward of gram_family_forward with upstream weight c = ∂loss/∂(‖UᵀU − I‖²_F). Gradients go to
// cc, pc and pp only (cp = pcᵀ: the blocks op maps either to the same gradient of A or B), to
// the two per-step scalars, and to H (dh; nullptr: not needed).
template <class T>
void gram_family_backward(ConstMatrixMap<T> h, const BlockViews<T>& blocks, const GramKeep<T>& keep,
                          T c, StructuredTemporaries<T>& tmp, const BlockGrads<T>& grads,
                          const ScalarGrads<T>& scalar_grads, T* dh) {
  const Eigen::Index n = h.rows(), d = h.cols();
  if (scalar_grads.squared_norm != nullptr) *scalar_grads.squared_norm += c;
  if (scalar_grads.trace != nullptr) *scalar_grads.trace -= T(2) * c;
  gram_operands(h, blocks, keep, tmp);
  // ⟨PᵀP, QᵀQ⟩ − 2⟨P, Q⟩: dP = 2c·P·QᵀQ − 2c·Q, dQ = 2c·Q·PᵀP − 2c·P.
  multiply(tmp.d_p, tmp.p, keep.qtq, false, T(2) * c);
  tmp.d_p -= T(2) * c * tmp.q;
  multiply(tmp.d_q, tmp.q, keep.ptp, false, T(2) * c);
  tmp.d_q -= T(2) * c * tmp.p;
  // 2⟨K, T + pc⟩, K = pp·H: dK = 2c(T + pc), dT += 2cK, dpc += 2cK, dpp += dK·Hᵀ, dH += pp·dK.
  tmp.d_k = T(2) * c * (keep.t + blocks.pc);
  // T = H·cc + pc collects dQ's left half and 2cK.
  tmp.d_t = T(2) * c * keep.k;
  add_half(tmp.d_t, tmp.d_q, 0);
  if (grads.pp != nullptr) {
    tmp.h_t = h.transpose();
    multiply(MatrixMap<T>(grads.pp, n, n), tmp.d_k, tmp.h_t, true);
  }
  if (grads.pc != nullptr) {
    MatrixMap<T> d_pc(grads.pc, n, d);
    d_pc += tmp.d_t + T(2) * c * keep.k;
    add_half(d_pc, tmp.d_p, 1);
  }
  if (grads.cc != nullptr) multiply_at(MatrixMap<T>(grads.cc, d, d), h, tmp.d_t, true);
  if (dh == nullptr) return;
  MatrixMap<T> d_h(dh, n, d);
  add_half(d_h, tmp.d_p, 0);
  add_half(d_h, tmp.d_q, 1);
  multiply(d_h, blocks.pp, tmp.d_k, true);
  tmp.cc_t = blocks.cc.transpose();
  multiply(d_h, tmp.d_t, tmp.cc_t, true);
}

// The structured kernel's order of the gate's backward sums (score_core.hpp).
inline constexpr GateBackwardOrder kStructuredGateOrder{false, true};

// One sample's operands of the structured kernel, by name.
template <class T>
struct StructuredOperands {
  ConstMatrixMap<T> h;                      // H (n×d)
  BlockViews<T> omega, phi, psi;            // the blocks of Ω, Φ and Ψ
  GramScalars<T> phi_scalars, psi_scalars;  // ‖pp‖²_F and tr pp of Φ and Ψ
  T gamma;                                  // 1 with an open gate
  ConstMatrixMap<T> w_v;                    // W_v (d×d)
  int r;                                    // the rank
};

// Where one sample's gradients go: dH is added to the input's gradient, the others to the blocks'
// and parameters' per-group slots; each nullptr when not needed.
template <class T>
struct StructuredGradients {
  T* dh;
  BlockGrads<T> d_omega, d_phi, d_psi;
  ScalarGrads<T> d_phi_scalars, d_psi_scalars;
  T *dgamma, *dw_v;
};

// S from the blocks of Ω, then the score core (score_core.hpp) with V = H, out = M·H·W_v,
// and the penalty from Φ and Ψ.
template <class T>
T structured_forward(const StructuredOperands<T>& in, StructuredSample<T>& keep,
                     StructuredTemporaries<T>& tmp, MatrixMap<T> out) {
  const int n = int(in.h.rows()), r = in.r;
  tmp.h_t = in.h.transpose();
  structured_bilinear(in.h, in.omega, tmp, keep.T_S, keep.S);
  score_core_forward<T>({n, false, true}, keep.S, keep.P, tmp.mixer, in.gamma, strided(in.h),
                        strided_out(keep.Z));
  multiply(out, keep.Z, in.w_v);
  return (gram_family_forward(in.h, in.phi, in.phi_scalars, r, keep.u, tmp) +
          gram_family_forward(in.h, in.psi, in.psi_scalars, r, keep.v, tmp)) /
         T(double(r) * r);
}

// Given dOut = ∂/∂(pp + T·Hᵀ + H·cp) (n×n, in `d_out`) with T = H·cc + pc: the blocks'
// gradients, and dH (nullptr: not needed).
template <class T>
void structured_bilinear_backward(ConstMatrixMap<T> h, const BlockViews<T>& blocks,
                                  ConstMatrixMap<T> keep_t, ConstMatrixMap<T> d_out,
                                  StructuredTemporaries<T>& tmp, const BlockGrads<T>& grads,
                                  T* dh) {
  const Eigen::Index n = h.rows(), d = h.cols();
  multiply(tmp.d_t, d_out, h);  // dT = dOut·H
  if (grads.pp != nullptr) MatrixMap<T>(grads.pp, n, n) += d_out;
  if (grads.cp != nullptr) multiply_at(MatrixMap<T>(grads.cp, d, n), h, d_out, true);
  if (grads.cc != nullptr) multiply_at(MatrixMap<T>(grads.cc, d, d), h, tmp.d_t, true);
  if (grads.pc != nullptr) MatrixMap<T>(grads.pc, n, d) += tmp.d_t;
  if (dh == nullptr) return;
  MatrixMap<T> d_h(dh, n, d);
  multiply_at(d_h, d_out, keep_t, true);  // T·Hᵀ: dH += dOutᵀ·T
  tmp.cp_t = blocks.cp.transpose();
  multiply(d_h, d_out, tmp.cp_t, true);  // H·cp: dH += dOut·cpᵀ
  tmp.cc_t = blocks.cc.transpose();
  multiply(d_h, tmp.d_t, tmp.cc_t, true);  // T = H·cc: dH += dT·ccᵀ
}

template <class T>
void structured_backward(const StructuredOperands<T>& in, StructuredSample<T>& keep,
                         ConstMatrixMap<T> d_out, T weight_penalty, StructuredTemporaries<T>& tmp,
                         const StructuredGradients<T>& grads) {
  const ConstMatrixMap<T> h = in.h;
  // out = Z·W_v, Z = M·H: dW_v = Zᵀ·dOut, dZ = dOut·W_vᵀ; the core's backward with V = H
  // (dH += Mᵀ·dZ, dM into the mixer's memory, dγ, dS in place of S); then S's blocks and dH.
  if (grads.dw_v != nullptr)
    multiply_at(MatrixMap<T>(grads.dw_v, h.cols(), h.cols()), keep.Z, d_out, true);
  tmp.w_v_t = in.w_v.transpose();
  multiply(tmp.d_z, d_out, tmp.w_v_t);
  MatrixMap<T> d_s = keep.S;  // S is needed only until its row of dS is written
  score_core_backward<T>(
      {int(h.rows()), false, true}, kStructuredGateOrder,
      {read_only(keep.S), read_only(keep.P), in.gamma, strided(h), strided(tmp.d_z), tmp.h_t,
       tmp.mixer, tmp.mixer, d_s, grads.dh, true, grads.dgamma});
  structured_bilinear_backward(h, in.omega, read_only(keep.T_S), read_only(d_s), tmp, grads.d_omega,
                               grads.dh);
  // The penalty, (‖UᵀU − I‖² + ‖VᵀV − I‖²)/r².
  const T c = weight_penalty / T(double(in.r) * in.r);
  gram_family_backward(h, in.phi, keep.u, c, tmp, grads.d_phi, grads.d_phi_scalars, grads.dh);
  gram_family_backward(h, in.psi, keep.v, c, tmp, grads.d_psi, grads.d_psi_scalars, grads.dh);
}

// The structured op's inputs by name: their index among its inputs and sinks (-1: absent).
struct StructuredInputs {
  int h = 0, blocks = 1;  // the kBlockCount blocks and scalars from `blocks` on
  int gamma = 1 + kBlockCount, w_v = 2 + kBlockCount;
};

// inputs: H [B, n, d]; the blocks and scalars (kBlockCount); γ [1, 1, 1] (a learned gate only);
// W_v [1, d, d]. outputs: branch [B, n, d], penalty [B, 1, 1]. Without γ the gate is open, γ = 1
// (the attention mixer): M = 0·S + 1·softmax(S), exactly as the dense kernel computes it.
template <class T>
struct StructuredUniversalOp : KeepingOp<T> {
  StructuredLayout layout{};
  StructuredInputs slot;
  static_assert(StructuredInputs{}.h == KeepingOp<T>::kBatched);
  int r = 0;

  std::size_t kept_size() const override { return layout.forward_size(); }
  std::size_t temporaries_size() const override { return layout.backward_size(); }
  StructuredOperands<T> operands(const Tape<T>& tape, int b) const {
    auto value = [&](int index) { return this->value_of(tape, index); };
    auto family = [&](int first) {
      auto view = [&](int k) { return value(slot.blocks + first + k).view(0); };
      return BlockViews<T>{view(0), view(1), view(2), view(3)};
    };
    auto scalars = [&](int squared_norm, int trace) {
      return GramScalars<T>{value(slot.blocks + squared_norm).data[0],
                            value(slot.blocks + trace).data[0]};
    };
    return {value(slot.h).view(b),
            family(kOmegaCC),
            family(kPhiCC),
            family(kPsiCC),
            scalars(kPhiPPSquaredNorm, kPhiPPTrace),
            scalars(kPsiPPSquaredNorm, kPsiPPTrace),
            slot.gamma >= 0 ? value(slot.gamma).data[0] : T(1),
            value(slot.w_v).view(0),
            r};
  }
  // Every sink is grabbed before the kernel: begin_sample clears a group's slot at its first
  // sample.
  StructuredGradients<T> gradients(int b) const {
    auto sink = [&](int index) { return index >= 0 ? this->sink(index).begin_sample(b) : nullptr; };
    auto family = [&](int first) {
      const int at = slot.blocks + first;
      return BlockGrads<T>{sink(at), sink(at + 1), sink(at + 2), sink(at + 3)};
    };
    auto scalars = [&](int squared_norm, int trace) {
      return ScalarGrads<T>{sink(slot.blocks + squared_norm), sink(slot.blocks + trace)};
    };
    return {sink(slot.h),
            family(kOmegaCC),
            family(kPhiCC),
            family(kPsiCC),
            scalars(kPhiPPSquaredNorm, kPhiPPTrace),
            scalars(kPsiPPSquaredNorm, kPsiPPTrace),
            sink(slot.gamma),
            sink(slot.w_v)};
  }

  void forward_sample(Tape<T>& tape, int b) override {
    StructuredSample<T> keep = structured_sample(this->kept(b), layout);
    StructuredTemporaries<T> tmp =
        structured_temporaries(this->temporaries(tape, b), layout.n, layout.d);
    tape.value(this->extra_outputs[0]).sample(b)[0] =
        structured_forward<T>(operands(tape, b), keep, tmp, tape.value(this->output).matrix(b));
  }
  void backward_sample(Tape<T>& tape, int b) override {
    StructuredSample<T> keep = structured_sample(this->kept(b), layout);
    StructuredTemporaries<T> tmp =
        structured_temporaries(this->temporaries(tape, b), layout.n, layout.d);
    structured_backward<T>(operands(tape, b), keep, tape.grad(this->output).view(b),
                           tape.grad(this->extra_outputs[0]).sample(b)[0], tmp, gradients(b));
  }
};

// Records the structured branch; returns {branch [B, n, d], penalty [B, 1, 1]}.
template <class T>
std::pair<Var, Var> structured_universal(Tape<T>& tape, Var h, const FactorOperands& factors,
                                         const std::string& name) {
  // Copies: recording the blocks below may move the tape's node storage.
  const Shape sh = tape.shape(h);
  const Shape sa = tape.shape(factors.a);
  if (tape.shape(factors.b) != sa || sa.batch != 1 || sa.rows != sh.cols + sh.rows + 1 ||
      tape.shape(factors.sigma).size() != std::size_t(sa.cols) ||
      (factors.gamma.valid() && tape.shape(factors.gamma).size() != 1) ||
      tape.shape(factors.w_v) != Shape{1, sh.cols, sh.cols})
    throw std::logic_error(name + ": shapes do not fit H " + sh.str() + " and A " + sa.str());
  const std::vector<Var> blocks =
      universal_blocks(tape, factors.a, factors.b, factors.sigma, sh.rows, sh.cols, name);
  auto op = std::make_unique<StructuredUniversalOp<T>>();
  op->inputs = {h};
  op->inputs.insert(op->inputs.end(), blocks.begin(), blocks.end());
  op->slot.gamma = factors.gamma.valid() ? static_cast<int>(op->inputs.size()) : -1;
  if (factors.gamma.valid()) op->inputs.push_back(factors.gamma);
  op->slot.w_v = static_cast<int>(op->inputs.size());
  op->inputs.push_back(factors.w_v);
  op->layout = StructuredLayout{sh.rows, sh.cols};
  op->r = sa.cols;
  const std::vector<Var> outputs = tape.record_outputs(
      std::move(op),
      {{Shape{sh.batch, sh.rows, sh.cols}, name}, {Shape{sh.batch, 1, 1}, name + "_penalty"}});
  return {outputs[0], outputs[1]};
}

}  // namespace ufl::model
