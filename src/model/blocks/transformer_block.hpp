#pragma once
// The transformer block (model.block = "transformer"; docs/transformer.md §1): a list of residual
// branches, each a list of modules run in order, x ← x + module_k(…module_1(x)), as nanoGPT's
// Block: [norm1, heads] then [norm2, mlp]. Its kind is transformer_block.cpp; this header is for
// the analysis, which reads the heads' parameters.
#include <cstddef>
#include <vector>

#include "model/model.hpp"
#include "model/modules/heads.hpp"

namespace ufl::model {

template <class T>
struct TransformerBlock : Block<T> {
  std::vector<ModuleList<T>> branches;
  std::vector<std::vector<std::vector<int>>> slices;  // [branch][module] → slice indices

  const HeadsModule<T>& heads() const {
    return dynamic_cast<const HeadsModule<T>&>(*branches[0][1]);
  }
  const std::vector<int>& heads_slices() const { return slices[0][1]; }
  const std::vector<int>& norm1_slices() const { return slices[0][0]; }  // gain (and bias)

  void initialize(Model<T>& model, data::Rng& rng) const override;
  Var record(Tape<T>& tape, Model<T>& model, Var h, bool with_grads, LayerKernels kernels,
             ModelGraph<T>& graph) const override;
};

// Compiled once, in transformer_block.cpp, with the modules' fused kernels.
extern template struct TransformerBlock<float>;
extern template struct TransformerBlock<double>;

// Block l of a model of transformer blocks.
template <class T>
const TransformerBlock<T>& transformer_block(const Model<T>& model, std::size_t l) {
  return dynamic_cast<const TransformerBlock<T>&>(*model.blocks[l]);
}

}  // namespace ufl::model
