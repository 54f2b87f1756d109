#pragma once
// The transformer block (model.block = "transformer"; docs/transformer.md §1): a list of residual
// branches, each x ← x + module(norm(x)), as nanoGPT's pre-norm Block: [norm1, heads] then
// [norm2, mlp]. Its kind is transformer_block.cpp; what the analysis reads of it is its record,
// Block::parts (one part per head) and Block::input_norm (norm1).
#include <memory>
#include <vector>

#include "model/model.hpp"
#include "model/modules/norm.hpp"

namespace ufl::model {

template <class T>
struct TransformerBlock : Block<T> {
  struct Branch {
    std::shared_ptr<const NormModule<T>> norm;
    std::shared_ptr<const Module<T>> module;
    std::vector<int> norm_slices, module_slices;  // their parameters' slices in the model
  };
  std::vector<Branch> branches;

  void initialize(Model<T>& model, data::Rng& rng) const override;
  Var record(Tape<T>& tape, Model<T>& model, Var h, bool with_grads, LayerKernels kernels,
             ModelGraph<T>& graph) const override;
};

// Compiled once, in transformer_block.cpp, with the modules' fused kernels.
extern template struct TransformerBlock<float>;
extern template struct TransformerBlock<double>;

}  // namespace ufl::model
