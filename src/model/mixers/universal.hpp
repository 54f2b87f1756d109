#pragma once
// The universal factorization layer's mixer (docs/experiment.md §2, docs/design.md §2.5):
//   U = H̃A, V = H̃B, Σ = diag(softplus(s)), S = UΣVᵀ,
//   M = (1−γ)·S + γ·softmax_rows(S), γ = sigmoid(g),      branch = M·H·W_v,
// with H̃ = [H, e_i, 1] (seed 003) and the soft orthogonality penalty
// (‖UᵀU − I‖²_F + ‖VᵀV − I‖²_F)/r² per sample.
//
// On the tape it is recorded either op by op (the reference, which exposes U, V and M), or as one
// fused op: each sample's whole forward, and later its whole backward, in one kernel on one
// thread, without the per-op passes over memory (each op's output written, its gradient zeroed,
// read back by the next op) that cost more than the products at n = 32. Tests check that both
// give the same loss and gradients, and both against finite differences. The dense kernel is a
// score function (S = UΣVᵀ here, another for the distance mixer, distance.hpp) followed by the
// score core that the structured kernel and the transformer's heads share (score_core.hpp).
//
// Hand-set parameters make it attention, a convolution, a Fourier projection or a truncated SVD
// (docs/design.md §2.2-2.4): set_attention and set_position_operator below.
#include <cmath>

#include "model/mixer.hpp"
#include "model/mixers/score_core.hpp"
#include "model/mixers/universal_structured.hpp"
#include "tape/keeping_op.hpp"
#include "tape/ops.hpp"
#include "tensor/small_gemm.hpp"

namespace ufl::model {

// ---- the fused kernel --------------------------------------------------------------------------

// One sample's activations, kept from forward for backward. Row-major, as every tensor.
template <class T>
struct UniversalSample {
  MatrixMap<T> U, V, S, P, Z, gram_U, gram_V;  // Z = M·H; gram_* hold UᵀU − I and VᵀV − I
};

// Sizes of one sample's forward activations and of its backward temporaries.
struct UniversalLayout {
  int n, d, r;
  std::size_t score_scratch = 0;  // the score function's backward scratch (score_core.hpp)
  std::size_t forward_size() const {
    return 2 * std::size_t(n) * r + 2 * std::size_t(n) * n + std::size_t(n) * d +
           2 * std::size_t(r) * r;
  }
  // dZ (n×d), Hᵀ (d×n), W_vᵀ (d×d), dM (n×n), the score function's scratch, dU, dV (n×r),
  // M (n×n, for dH); forward borrows them for the score function's scratch, then M.
  std::size_t backward_size() const {
    return 2 * std::size_t(n) * d + std::size_t(d) * d + 2 * std::size_t(n) * n +
           2 * std::size_t(n) * r + score_scratch;
  }
};

template <class T>
UniversalSample<T> universal_sample(T* memory, const UniversalLayout& l) {
  T* at = memory;
  auto take = [&at](int rows, int cols) {
    MatrixMap<T> block(at, rows, cols);
    at += std::size_t(rows) * cols;
    return block;
  };
  return UniversalSample<T>{take(l.n, l.r), take(l.n, l.r), take(l.n, l.n), take(l.n, l.n),
                            take(l.n, l.d), take(l.r, l.r), take(l.r, l.r)};
}

// The dense kernel's order of the gate's backward sums (score_core.hpp).
inline constexpr GateBackwardOrder kDenseGateOrder{true, true};

// One sample's operands of the dense kernel, by name.
template <class T>
struct UniversalOperands {
  ConstMatrixMap<T> h;     // H (n×d)
  ConstMatrixMap<T> a, b;  // A, B ((d+n+1)×r)
  const T* sigma;          // σ (r)
  T gamma;                 // 1 with an open gate
  ConstMatrixMap<T> w_v;   // W_v (d×d)
};

// Where one sample's gradients go: dH is added to the input's gradient, the others to the shared
// parameters' per-sample slots; each nullptr when not needed.
template <class T>
struct UniversalGradients {
  T *dh, *da, *db, *dsigma, *dgamma, *dw_v;
};

// Forward of one sample: S from U, V and σ by `scores` (the bilinear form UΣVᵀ, or the distance
// mixer's), then the score core (score_core.hpp) with V = H, and out = M·H·W_v. Returns the
// penalty; keeps the activations in `keep`.
template <class T>
T universal_forward(const UniversalOperands<T>& in, UniversalSample<T>& keep, T* temporaries,
                    MatrixMap<T> out, const ScoreFunction& scores) {
  const Eigen::Index n = in.h.rows(), r = in.a.cols();
  homogeneous_project_forward<T>(in.h, in.a, keep.U);
  homogeneous_project_forward<T>(in.h, in.b, keep.V);
  // The temporaries are free during forward: the score function's scratch, then M.
  scores.forward(
      ScoreOperands<T>{strided(keep.U), strided(keep.V), in.sigma, {int(n), false}, temporaries},
      keep.S);
  score_core_forward<T>({int(n), false, true}, keep.S, keep.P, MatrixMap<T>(temporaries, n, n),
                        in.gamma, strided(in.h), strided_out(keep.Z));
  multiply(out, keep.Z, in.w_v);
  multiply_at(keep.gram_U, keep.U, keep.U);
  keep.gram_U.diagonal().array() -= T(1);
  multiply_at(keep.gram_V, keep.V, keep.V);
  keep.gram_V.diagonal().array() -= T(1);
  return (keep.gram_U.squaredNorm() + keep.gram_V.squaredNorm()) / T(r * r);
}

// Gradients of one sample, from d_out = ∂loss/∂out and weight_penalty = ∂loss/∂penalty:
// dW_v = Zᵀ·dOut and dZ = dOut·W_vᵀ, the core's backward with V = H (dH += Mᵀ·dZ, dM, dγ, dS),
// the score function's (dU, dV, dσ), the penalty's and the projections'.
template <class T>
void universal_backward(const UniversalOperands<T>& in, const UniversalSample<T>& keep,
                        ConstMatrixMap<T> d_out, T weight_penalty, T* temporaries,
                        const UniversalGradients<T>& grads, const ScoreFunction& scores) {
  const Eigen::Index n = in.h.rows(), d = in.h.cols(), r = in.a.cols();
  T* at = temporaries;
  auto take = [&at](Eigen::Index rows, Eigen::Index cols) {
    MatrixMap<T> block(at, rows, cols);
    at += std::size_t(rows) * cols;
    return block;
  };
  MatrixMap<T> d_z = take(n, d), h_transposed = take(d, n);
  MatrixMap<T> w_v_transposed = take(d, d), d_m = take(n, n);
  T* scratch = at;
  at += scores.backward_scratch(int(n), int(r), true);
  MatrixMap<T> d_u = take(n, r), d_v = take(n, r), mixer = take(n, n);

  if (grads.dw_v != nullptr) multiply_at(MatrixMap<T>(grads.dw_v, d, d), keep.Z, d_out, true);
  w_v_transposed = in.w_v.transpose();
  multiply(d_z, d_out, w_v_transposed);
  score_core_backward<T>(
      {int(n), false, true}, kDenseGateOrder,
      {read_only(keep.S), read_only(keep.P), in.gamma, strided(in.h), strided(d_z), h_transposed,
       mixer, d_m, d_m, grads.dh, true, grads.dgamma});
  scores.backward(
      ScoreOperands<T>{strided(keep.U), strided(keep.V), in.sigma, {int(n), false}, scratch},
      read_only(d_m), d_u, d_v, grads.dsigma);
  // The penalty: ∂‖UᵀU − I‖²/∂U = 4U(UᵀU − I), over r².
  const T ortho_scale = T(4) * weight_penalty / T(r * r);
  multiply(d_u, keep.U, keep.gram_U, true, ortho_scale);
  multiply(d_v, keep.V, keep.gram_V, true, ortho_scale);
  // U = H·A_content + A_position + 1·a_biasᵀ, likewise V with B.
  homogeneous_project_backward<T>(in.h, in.a, ConstMatrixMap<T>(d_u.data(), n, r), grads.dh,
                                  grads.da);
  homogeneous_project_backward<T>(in.h, in.b, ConstMatrixMap<T>(d_v.data(), n, r), grads.dh,
                                  grads.db);
}

// The dense op's inputs by name: their index among its inputs and sinks (-1: absent).
struct UniversalInputs {
  int h = 0, a = 1, b = 2, sigma = 3, gamma = 4, w_v = 5;
};

// inputs: H [B, n, d] and the FactorOperands. outputs: the branch [B, n, d] and the penalty
// [B, 1, 1].
template <class T>
struct FusedUniversalOp : KeepingOp<T> {
  UniversalLayout layout{};
  UniversalInputs slot;
  static_assert(UniversalInputs{}.h == KeepingOp<T>::kBatched);
  const ScoreFunction* scores = &dot_scores();

  UniversalOperands<T> operands(const Tape<T>& tape, int b) const {
    auto value = [&](int index) { return this->value_of(tape, index); };
    return {value(slot.h).view(b),
            value(slot.a).view(0),
            value(slot.b).view(0),
            value(slot.sigma).data,
            slot.gamma >= 0 ? value(slot.gamma).data[0] : T(1),
            value(slot.w_v).view(0)};
  }
  UniversalGradients<T> gradients(int b) const {
    auto sink = [&](int index) { return index >= 0 ? this->sink(index).begin_sample(b) : nullptr; };
    return {sink(slot.h),     sink(slot.a),     sink(slot.b),
            sink(slot.sigma), sink(slot.gamma), sink(slot.w_v)};
  }

  std::size_t kept_size() const override { return layout.forward_size(); }
  std::size_t temporaries_size() const override {
    const std::size_t n = layout.n;
    return std::max(layout.backward_size(),
                    std::max(n * n, scores->forward_scratch(layout.n, layout.r, true)));
  }
  void forward_sample(Tape<T>& tape, int b) override {
    UniversalSample<T> keep = universal_sample(this->kept(b), layout);
    tape.value(this->extra_outputs[0]).sample(b)[0] =
        universal_forward<T>(operands(tape, b), keep, this->temporaries(tape, b),
                             tape.value(this->output).matrix(b), *scores);
  }
  void backward_sample(Tape<T>& tape, int b) override {
    UniversalSample<T> keep = universal_sample(this->kept(b), layout);
    universal_backward<T>(operands(tape, b), keep, tape.grad(this->output).view(b),
                          tape.grad(this->extra_outputs[0]).sample(b)[0],
                          this->temporaries(tape, b), gradients(b), *scores);
  }
};

// Records the fused branch; returns {branch [B, n, d], penalty [B, 1, 1]}.
template <class T>
std::pair<Var, Var> fused_universal(Tape<T>& tape, Var h, const FactorOperands& factors,
                                    const std::string& name,
                                    const ScoreFunction& scores = dot_scores()) {
  const Shape& sh = tape.shape(h);
  const Shape& sa = tape.shape(factors.a);
  if (tape.shape(factors.b) != sa || sa.batch != 1 || sa.rows != sh.cols + sh.rows + 1 ||
      tape.shape(factors.sigma).size() != std::size_t(sa.cols) ||
      (factors.gamma.valid() && tape.shape(factors.gamma).size() != 1) ||
      tape.shape(factors.w_v) != Shape{1, sh.cols, sh.cols})
    throw std::logic_error(name + ": shapes do not fit H " + sh.str() + " and A " + sa.str());
  auto op = std::make_unique<FusedUniversalOp<T>>();
  op->inputs = {h, factors.a, factors.b, factors.sigma};
  if (factors.gamma.valid()) {
    op->slot.gamma = static_cast<int>(op->inputs.size());
    op->inputs.push_back(factors.gamma);
  } else {
    op->slot.gamma = -1;
  }
  op->slot.w_v = static_cast<int>(op->inputs.size());
  op->inputs.push_back(factors.w_v);
  op->layout =
      UniversalLayout{sh.rows, sh.cols, sa.cols, scores.backward_scratch(sh.rows, sa.cols, true)};
  op->scores = &scores;
  const std::vector<Var> outputs = tape.record_outputs(
      std::move(op),
      {{Shape{sh.batch, sh.rows, sh.cols}, name}, {Shape{sh.batch, 1, 1}, name + "_penalty"}});
  return {outputs[0], outputs[1]};
}

// (‖FᵀF − I‖²_F)/r² per sample, op by op: the composite graph's half of the penalty.
template <class T>
Var gram_penalty(Tape<T>& tape, Var factor, const std::string& name) {
  const int r = tape.shape(factor).cols;
  const Var gram = matmul(tape, factor, factor, true, false, name + "_gram");
  const Var deviation = add_diagonal(tape, gram, -1.0, name + "_gram_minus_I");
  return sample_sum(tape, square(tape, deviation), 1.0 / (double(r) * r), name + "_penalty");
}

// ---- the factorized mixers (universal, attention) ---------------------------------------------

// Position rows of A and B from N(0, 1/n), content rows from N(0, c²/(n·d)), bias rows zero
// (docs/experiment.md §2, §5). Draw order: A's content rows, A's position rows, B's content rows,
// B's position rows, row-major. In a transformer block both are init_std, as GPT-2's matrices
// (docs/transformer.md §4).
template <class T>
void initialize_homogeneous_factors(MatrixMap<T> a, MatrixMap<T> b, const LayerShape& shape,
                                    const LayerConfig& config, data::Rng& rng) {
  const double content_std = shape.transformer
                                 ? shape.init_std
                                 : config.content_init_scale / std::sqrt(double(shape.n) * shape.d);
  const double position_std = shape.transformer ? shape.init_std : 1.0 / std::sqrt(double(shape.n));
  for (MatrixMap<T>* factor : {&a, &b}) {
    T* rows = factor->data();
    const std::size_t content = std::size_t(shape.d) * shape.r;
    const std::size_t position = std::size_t(shape.n) * shape.r;
    for (std::size_t e = 0; e < content; ++e) rows[e] = T(content_std * rng.normal());
    for (std::size_t e = 0; e < position; ++e) rows[content + e] = T(position_std * rng.normal());
  }
}

// A factorized mixer's parameters on the tape: A, B, s (Σ = softplus(s)), g (γ = sigmoid(g);
// invalid: the gate is open) and W_v.
struct FactorizedParameters {
  Var a, b, s, g, w_v;
};

// How record_factorized records them: which kernels, whether with the penalty, the layer's
// shape (a transformer head's is recorded op by op) and the score function.
struct FactorizedRecording {
  LayerKernels kernels = LayerKernels::kFused;
  bool with_penalty = true;
  LayerShape shape{};
  const ScoreFunction* scores = &dot_scores();
};

// Records M(H)·H·W_v with S = H̃AΣBᵀH̃ᵀ (or another score function of U = H̃A, V = H̃B and Σ),
// Σ = softplus(s) and M = (1−γ)S + γ·softmax(S), γ = sigmoid(g); without a valid `g` the gate is
// open and M = softmax(S) (attention).
template <class T>
MixerGraph record_factorized(Tape<T>& tape, Var h, const FactorizedParameters& params,
                             const FactorizedRecording& how) {
  const auto& [a, b, s, g, w_v] = params;
  const LayerShape& shape = how.shape;
  const ScoreFunction& scores = *how.scores;
  const Var sigma = softplus(tape, s, "Sigma");
  const Var gamma = g.valid() ? sigmoid(tape, g, "gamma") : Var{};
  MixerGraph graph;
  if (shape.transformer) {
    // A transformer head (docs/transformer.md §3): S/√r, masked when causal, on the head's
    // value slice H·W_v; op by op (the fused kernels take square W_v and no mask).
    graph.kernel = "composite";
    graph.U = homogeneous_project(tape, h, a, "U");
    graph.V = homogeneous_project(tape, h, b, "V");
    const Var S = scale(tape, scores.record(tape, graph.U, graph.V, sigma, "UΣVᵀ"),
                        1.0 / std::sqrt(double(shape.r)), "S");
    const Var attention = shape.causal ? causal_softmax_rows(tape, S, "softmax_S")
                                       : softmax_rows(tape, S, "softmax_S");
    // Causal: the linear branch is the mean over the positions a row reads (docs/universal_head.md
    // §1), as softmax's rows are averages; a sum over up to n of them drowns the stream.
    const Var linear = shape.causal ? causal_row_mean(tape, S, "S_causal_mean") : S;
    graph.M = gamma.valid() ? lerp(tape, linear, attention, gamma, "M") : attention;
    if (gamma.valid()) {
      graph.linear = linear;
      graph.softmax = attention;
    }
    graph.out =
        matmul(tape, graph.M, matmul(tape, h, w_v, false, false, "values"), false, false, "branch");
    if (how.with_penalty)
      graph.penalty =
          add(tape, gram_penalty(tape, graph.U, "U"), gram_penalty(tape, graph.V, "V"), "penalty");
    return graph;
  }
  if (how.kernels != LayerKernels::kComposite) {
    // The structured kernel where it saves enough FLOPs (universal_structured.hpp), else the
    // dense one; both take a learned or an open gate. The structured kernel expands the bilinear
    // form: any other score function runs on the dense kernel (kStructured included).
    const Shape input = tape.shape(h);
    const bool structured =
        scores.bilinear() && (how.kernels == LayerKernels::kStructured ||
                              (how.kernels == LayerKernels::kFused &&
                               structured_pays(input.rows, input.cols, tape.shape(a).cols,
                                               input.batch, tape.needs_grad(h))));
    graph.kernel = structured ? "structured" : "dense";
    const FactorOperands factors{a, b, sigma, gamma, w_v};
    std::tie(graph.out, graph.penalty) = structured
                                             ? structured_universal(tape, h, factors, "branch")
                                             : fused_universal(tape, h, factors, "branch", scores);
    return graph;
  }
  graph.kernel = "composite";
  graph.U = homogeneous_project(tape, h, a, "U");
  graph.V = homogeneous_project(tape, h, b, "V");
  const Var S = scores.record(tape, graph.U, graph.V, sigma, "S");
  const Var attention = softmax_rows(tape, S, "softmax_S");
  graph.M = gamma.valid() ? lerp(tape, S, attention, gamma, "M") : attention;
  if (gamma.valid()) {
    graph.linear = S;
    graph.softmax = attention;
  }
  const Var mixed = matmul(tape, graph.M, h, false, false, "MH");
  graph.out = matmul(tape, mixed, w_v, false, false, "branch");
  if (how.with_penalty)
    graph.penalty =
        add(tape, gram_penalty(tape, graph.U, "U"), gram_penalty(tape, graph.V, "V"), "penalty");
  return graph;
}

// A head's offset rows from a factor over x̃ = [x̂, e_i, 1]: its position rows plus its bias row,
// [1, n, r] (the universal and distance heads' O_q and O_k before their scales).
template <class T>
Var head_offsets(Tape<T>& tape, Var factor, const LayerShape& shape, const std::string& name) {
  return add_rows(tape, row_block(tape, factor, shape.d, shape.n, name + "_position"),
                  row_block(tape, factor, shape.d + shape.n, 1, name + "_bias"), name + "_offsets");
}

// A universal head of a transformer block as the fused heads kernel takes it (docs/transformer.md
// §8): U = x̂·A_content + A_position + 1·a_biasᵀ, likewise V with B, and S = U·diag(σ)·Vᵀ/√r, so
// W_q = A_content·diag(σ)/√r, O_q = (A_position + 1·a_biasᵀ)·diag(σ)/√r, W_k = B_content, O_k =
// B_position + 1·b_biasᵀ; γ = sigmoid(g).
template <class T>
HeadInputs universal_head_inputs(Tape<T>& tape, Var a, Var b, Var s, Var g,
                                 const LayerShape& shape) {
  const Var sigma = softplus(tape, s, "Sigma");
  const double scale_by = 1.0 / std::sqrt(double(shape.r));
  HeadInputs inputs;
  inputs.query_weights =
      scale(tape, diag_scale(tape, row_block(tape, a, 0, shape.d, "A_content"), sigma, "A_Sigma"),
            scale_by, "W_q");
  inputs.query_offsets = scale(
      tape, diag_scale(tape, head_offsets(tape, a, shape, "A"), sigma, "O_Sigma"), scale_by, "O_q");
  inputs.key_weights = row_block(tape, b, 0, shape.d, "W_k");
  inputs.key_offsets = head_offsets(tape, b, shape, "B");
  inputs.gate = sigmoid(tape, g, "gamma");
  return inputs;
}

// Ω's factors A, B and σ = softplus(s), in double.
template <class T>
Factors homogeneous_factors(ConstMatrixMap<T> a, ConstMatrixMap<T> b, ConstMatrixMap<T> s) {
  Factors factors{a.template cast<double>(), b.template cast<double>(), Eigen::VectorXd(s.cols())};
  for (Eigen::Index j = 0; j < s.cols(); ++j) factors.sigma(j) = stable_softplus(double(s(0, j)));
  return factors;
}

// Σ = softplus(s) for the run folder, computed in the parameters' precision.
template <class T>
DerivedArray<T> sigma_array(ConstMatrixMap<T> s) {
  DerivedArray<T> sigma{"Sigma", {std::size_t(s.cols())}, {}};
  for (Eigen::Index j = 0; j < s.cols(); ++j) sigma.values.push_back(stable_softplus(s(0, j)));
  return sigma;
}

template <class T>
class UniversalMixer : public Mixer<T> {
 public:
  static constexpr int kA = 0, kB = 1, kS = 2, kG = 3;

  std::string_view name() const override { return "universal"; }
  std::string_view summary() const override {
    return "M = (1−γ)·S + γ·softmax(S), S = X̃AΣBᵀX̃ᵀ: the paper's layer, every special case in "
           "one; in transformer blocks γ starts at 0.99 and causal heads take the linear branch "
           "as a row mean, two deviations from it (docs/universal_head.md §1)";
  }
  bool input_dependent() const override { return true; }
  bool softmax_branch() const override { return true; }
  bool learned_gate() const override { return true; }
  bool has_factors() const override { return true; }
  std::vector<std::string> config_keys() const override {
    return {"layer.rank", "layer.content_init_scale", "layer.gate_init"};
  }
  // γ = 0 with position rows only: any fixed operator of rank ≤ r; γ = 1: attention.
  OperatorFamily operator_family(const LayerShape& shape, const LayerConfig&) const override {
    return {OperatorFamily::Fixed::kRankAtMost, shape.r,
            "any fixed operator of rank ≤ " + std::to_string(shape.r) +
                " (γ = 0) blended with attention (γ = 1)"};
  }

  std::vector<TensorSpec> parameters(const LayerShape& shape, const LayerConfig&) const override {
    const int h = shape.homogeneous_dim();
    return {{"A", h, shape.r}, {"B", h, shape.r}, {"s", 1, shape.r}, {"g", 1, 1}};
  }
  // A and B as initialize_homogeneous_factors draws them; g = logit(layer.gate_init) (0 for the
  // default γ = ½); s zero, or in a transformer block softplus(s) = 1 (docs/transformer.md §4).
  void initialize(ParameterViews<T> params, const LayerShape& shape, const LayerConfig& config,
                  data::Rng& rng) const override {
    initialize_homogeneous_factors(params[kA], params[kB], shape, config, rng);
    if (shape.transformer) params[kS].setConstant(T(std::log(std::expm1(1.0))));
    params[kG].setConstant(T(std::log(config.gate_init / (1 - config.gate_init))));
  }
  MixerGraph record(Tape<T>& tape, Var h, const std::vector<Var>& params, Var w_v,
                    const LayerShape& shape, LayerKernels kernels,
                    bool with_penalty) const override {
    return record_factorized(tape, h, {params[kA], params[kB], params[kS], params[kG], w_v},
                             {kernels, with_penalty, shape});
  }
  HeadInputs record_head_inputs(Tape<T>& tape, const std::vector<Var>& params,
                                const LayerShape& shape) const override {
    return universal_head_inputs(tape, params[kA], params[kB], params[kS], params[kG], shape);
  }

  std::optional<double> gate(const ConstParameterViews<T>& params) const override {
    return stable_sigmoid(double(params[kG](0, 0)));
  }
  // In a transformer block σ carries the scores' 1/√r (docs/head_structure.md §2).
  std::optional<Factors> factors(const ConstParameterViews<T>& params,
                                 const LayerShape& shape) const override {
    Factors factors = homogeneous_factors(params[kA], params[kB], params[kS]);
    if (shape.transformer) factors.sigma /= std::sqrt(double(shape.r));
    return factors;
  }
  std::vector<DerivedArray<T>> derived_arrays(const ConstParameterViews<T>& params) const override {
    return {sigma_array(params[kS])};
  }
};

// ---- hand-set special cases (docs/design.md §2.2-2.4)
// ---------------------------------------------------

// The gate logit whose sigmoid is exactly 1 (or 0) in double: γ = 1/(1+e^−40) rounds to 1.
inline constexpr double kGateOpen = 40.0, kGateClosed = -40.0;

// softplus⁻¹(y) = log(eʸ − 1), so that Σ = diag(y).
inline double inverse_softplus(double y) { return std::log(std::expm1(y)); }

// One universal layer's parameters, by name.
template <class T>
struct UniversalParameters {
  LayerShape shape;
  MatrixMap<T> A, B, s, g, W_v;
};

// Y = softmax(X W_Q W_Kᵀ Xᵀ) X W_V: content rows of A = W_Q and of B = W_K (d×k, k ≤ r), Σ = I,
// γ = 1.
void set_attention(UniversalParameters<double> layer, const Eigen::MatrixXd& query,
                   const Eigen::MatrixXd& key, const Eigen::MatrixXd& value);

// M = fixed position operator P_A diag(σ) P_Bᵀ with γ = 0 and W_v = I: position rows of A and B
// hold the given n×k factors (k ≤ r), the rest is zero.
void set_position_operator(UniversalParameters<double> layer, const Eigen::MatrixXd& left,
                           const Eigen::VectorXd& singular_values, const Eigen::MatrixXd& right);

}  // namespace ufl::model
