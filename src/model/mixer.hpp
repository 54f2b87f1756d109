#pragma once
// A mixer: one way of building the n×n operator M that a layer applies along positions,
// branch = M(H)·H·W_v (docs/experiment.md §2; docs/design.md §2.2-2.5). Each mixer is one file
// under model/mixers/ that declares its parameters and their initialisation, records its forward
// and backward on the tape, and says what it has to show (its gate, the factors of Ω, arrays for
// the run folder); the layer, the model, the trainer and the analysis only ask it. W_v belongs to
// the layer: every mixer's branch multiplies by it.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "data/rng.hpp"
#include "model/mixers/score_core.hpp"
#include "model/model_config.hpp"
#include "tape/tape.hpp"
#include "tensor/eigen.hpp"

namespace ufl::model {

// The sizes a layer works with: n positions, d channels of its input (the stream's width) and r,
// the rank of U and V where the mixer has them.
struct LayerShape {
  int n = 32, d = 16, r = 32;
  int homogeneous_dim() const { return d + n + 1; }  // rows of A and B: [h; e_i; 1]
  // A head of a transformer block (docs/transformer.md §3): M is causal (position i reads
  // positions ≤ i) when the task predicts the next token, the head mixes a value slice H·W_v of
  // value_cols < d columns, S is scaled by 1/√r and matrices start as N(0, init_std²).
  bool transformer = false;
  bool causal = false;
  int value_cols = 0;  // 0: d (W_v is d×d)
  double init_std = 0.02;
  int values() const { return value_cols > 0 ? value_cols : d; }
};

struct TensorSpec {
  std::string name;
  int rows, cols;
};

// How a layer goes on the tape: one op per step of its formula (the reference, and the only way
// that exposes M, U and V), or fused kernels that compute the same loss and gradients faster:
// kFused lets the mixer pick its fastest kernel for the sizes; kDense and kStructured force one
// of the universal mixer's two (for tests and the benchmark; other mixers treat them as kFused).
enum class LayerKernels { kFused, kComposite, kDense, kStructured };

// A mixer's branch on the tape.
struct MixerGraph {
  Var out;  // M(H)·H·W_v, [B, n, d]
  Var penalty;  // [B, 1, 1]: (‖UᵀU − I‖²_F + ‖VᵀV − I‖²_F)/r² per sample; invalid without U, V
  Var M, U, V;  // the composite graph's operator ([B or 1, n, n]) and factors; invalid when fused
  Var input;    // a transformer head's input x̂ [B, n, D] (the normalised stream), composite only
  // A gated mixer's two branches before the gate, M = (1−γ)·linear + γ·softmax ([B, n, n]: S or
  // its causal row mean, and softmax(S)), for each one's share of the output
  // (docs/universal_head.md §2); composite only, invalid without a learned gate.
  Var linear, softmax;
  std::string kernel;  // which kernel computes it: "composite", "dense", "structured", …
};

// What a mixer's operators can be, for the analysis (docs/universality.md §1, §3): the fixed
// operators it can express, as one of the linear families the analysis fits (a band of w diagonals,
// symmetric circulant filters, matrices of rank ≤ r), and one phrase for a run's explanation.
struct OperatorFamily {
  enum class Fixed { kBand, kSymmetricCirculant, kRankAtMost, kNone };
  Fixed fixed = Fixed::kNone;  // kNone: no such family (attention's rows are row-stochastic)
  int size = 0;                // the band's width, or the rank bound
  std::string words;           // "one band of 5 taps, the same on every row"
};

// Ω = A·diag(σ)·Bᵀ over homogeneous coordinates (seed 003), for mixers that have such factors.
struct Factors {
  Eigen::MatrixXd A, B;
  Eigen::VectorXd sigma;
};

// An array a mixer derives from its parameters for the run folder (Σ = softplus(s)), in the
// parameters' precision.
template <class T>
struct DerivedArray {
  std::string name;
  std::vector<std::size_t> shape;
  std::vector<T> values;
};

// A head of a transformer block as the fused heads kernel runs it (model/modules/heads_kernel.hpp,
// docs/transformer.md §8): tensors on the tape, shared by the batch, that the mixer builds from
// the head's parameters once per step. Either scores
//   S = (x̂·W_q + O_q)(x̂·W_k + O_k)ᵀ   (the head's scales, Σ and 1/√r, folded into W_q and O_q),
//   M = (1−γ)·A + γ·softmax(S) with a gate (A = S, or its causal row mean: score_kernel.hpp),
//   M = softmax(S) without,
// or one operator M for every input. The scores are S = Q·Kᵀ, or any other score function of Q
// and K (score_core.hpp): the distance mixer's S_ij = −½‖Q_i − K_j‖² (it folds √(σ/√r) into both
// W_q, O_q and W_k, O_k).
struct HeadInputs {
  Var query_weights, key_weights;  // [1, D, r]
  Var query_offsets, key_offsets;  // [1, n, r]: position and bias rows; invalid when none
  Var gate;                        // γ [1, 1, 1]; invalid: M = softmax(S)
  Var fixed_operator;              // M [1, n, n], already masked when causal
  const ScoreFunction* score_function = &dot_scores();  // S from Q and K
  bool scores() const { return query_weights.valid(); }
};

template <class T>
using ParameterViews = std::vector<MatrixMap<T>>;
template <class T>
using ConstParameterViews = std::vector<ConstMatrixMap<T>>;

template <class T>
class Mixer {
 public:
  virtual ~Mixer() = default;

  virtual std::string_view name() const = 0;
  virtual std::string_view summary() const = 0;  // one line for --describe and the docs
  // M depends on the input (attention-like), rather than being one matrix for every sample.
  virtual bool input_dependent() const = 0;
  // M holds softmax(S) of scores built from the input (the branch that routes by content). Without
  // a learned gate M = softmax(S) and every operator is row-stochastic (attention's form).
  virtual bool softmax_branch() const { return false; }
  // M blends a linear branch with the softmax by a learned gate γ, so its kernel keeps S beside
  // softmax(S) (the memory estimate counts both).
  virtual bool learned_gate() const { return false; }
  // U = H̃A and V = H̃B exist: the orthogonality penalty and orth_rel apply.
  virtual bool has_factors() const = 0;
  // The layer.* config keys it reads besides layer.mixer ("layer.rank"): the key table makes
  // them this mixer's, so giving one to a mixer that does not read it is an error.
  virtual std::vector<std::string> config_keys() const = 0;
  // Its scores are a negative squared distance −½‖q_i − k_j‖² rather than the bilinear q_i·k_j
  // (the distance mixer): readings that assume the dot form (the attention fit of a layer, the
  // distance-form gap of docs/head_structure.md §2) do not apply to it.
  virtual bool distance_scores() const { return false; }
  // layer.gate_init when the config does not set it, for mixers whose documented result needs a
  // start of their own; nullopt: the block kind's default (BlockKind::default_gate_init).
  virtual std::optional<double> default_gate_init() const { return std::nullopt; }
  // M can be made causal (lower triangular) for next-token prediction; fourier cannot.
  virtual bool has_causal_form() const { return true; }
  // What its operators can be, at this shape and config.
  virtual OperatorFamily operator_family(const LayerShape& shape,
                                         const LayerConfig& config) const = 0;

  // The mixer's parameters (W_v excluded), in the order every other method takes them.
  virtual std::vector<TensorSpec> parameters(const LayerShape& shape,
                                             const LayerConfig& config) const = 0;
  // Draws their initial values from `rng`, in a fixed order.
  virtual void initialize(ParameterViews<T> params, const LayerShape& shape,
                          const LayerConfig& config, data::Rng& rng) const = 0;
  // Records the branch M(H)·H·W_v for the input `h` [B, n, d], and with `with_penalty` the
  // orthogonality penalty where the mixer has U and V (a fused kernel may compute it anyway).
  virtual MixerGraph record(Tape<T>& tape, Var h, const std::vector<Var>& params, Var w_v,
                            const LayerShape& shape, LayerKernels kernels,
                            bool with_penalty) const = 0;

  // A transformer head's inputs to the fused heads kernel (HeadInputs above), from its
  // parameters; the head's value weights W_v are the module's.
  virtual HeadInputs record_head_inputs(Tape<T>& tape, const std::vector<Var>& params,
                                        const LayerShape& shape) const = 0;

  // What the analysis reads: the gate γ, the factors of Ω, and arrays for the run folder.
  virtual std::optional<double> gate(const ConstParameterViews<T>&) const { return std::nullopt; }
  virtual std::optional<Factors> factors(const ConstParameterViews<T>&, const LayerShape&) const {
    return std::nullopt;
  }
  virtual std::vector<DerivedArray<T>> derived_arrays(const ConstParameterViews<T>&) const {
    return {};
  }
};

}  // namespace ufl::model
