#pragma once
// A module of a transformer block (docs/transformer.md §1): it declares its parameters, draws
// their initial values, and records its forward on the tape (each op's backward is beside its
// forward in tape/ops/). A block is a list of residual branches, each a list of modules run in
// order, x ← x + module_k(…module_1(x)), as nanoGPT's Block and micrograd's MLP.layers.
#include <memory>
#include <string>
#include <vector>

#include "data/rng.hpp"
#include "model/mixer.hpp"

namespace ufl::model {

struct ModuleGraph {
  Var out;
  std::vector<MixerGraph> heads;  // a mixing module's heads (M of each, for the analysis)
};

// The norm a fused branch applies to its input first (docs/transformer.md §8): its gain and, for
// layernorm, its bias on the tape.
struct NormInputs {
  Var gain, bias;  // bias invalid for rmsnorm
};

template <class T>
class Module {
 public:
  virtual ~Module() = default;
  virtual std::string name() const = 0;  // "norm1", "heads", "mlp"
  // Its parameters, in the order initialize() and record() take them; names are relative to the
  // block ("norm1_gain", "head2/A").
  virtual std::vector<TensorSpec> parameters() const = 0;
  virtual void initialize(ParameterViews<T> params, data::Rng& rng) const = 0;
  virtual ModuleGraph record(Tape<T>& tape, Var x, const std::vector<Var>& params) const = 0;
  // The whole residual branch x + module(norm(x)) as one fused op (modules/*_kernel.hpp) where
  // the module has one; an invalid `out` where it has not, and the branch is recorded op by op.
  virtual ModuleGraph record_branch(Tape<T>&, Var, const NormInputs&,
                                    const std::vector<Var>&) const {
    return {};
  }
};

template <class T>
using ModuleList = std::vector<std::shared_ptr<const Module<T>>>;

}  // namespace ufl::model
