#pragma once
// The model: a list of blocks over one flat parameter buffer (as micrograd's MLP.layers), and its
// forward graph on the tape (docs/section7.md §1):
//   H_0 = [X, 0] (n×D, the input zero-padded to the stream's width), H_l = block_l(H_{l−1}),
//   Y = H_L[:, :d].
// What a block is, and everything that depends on it, belongs to its kind (model/block.hpp).
// Depth 1 on the data's own channels (D = d, no padding, no slice) is the single layer of
// docs/experiment.md §2, with the same parameters, initialisation and results.
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/block.hpp"
#include "model/layer.hpp"
#include "model/mixers/registry.hpp"
#include "model/model_config.hpp"
#include "model/module.hpp"

namespace ufl::model {

template <class T>
class Model {
 public:
  // n positions and d channels of the data; the stack and the layer as the config says.
  // `vocab` > 0: the input is n token ids of that vocabulary, embedded (E, and P when
  // model.position_embedding), with a final norm whose output the task's tied head reads
  // (docs/transformer.md §1). 0: float n×d samples, zero-padded to the width.
  Model(int n, int d, const ModelConfig& model, const LayerConfig& layer, int vocab = 0,
        bool causal = false);

  int depth() const { return static_cast<int>(blocks.size()); }
  bool tokens() const { return vocab > 0; }
  // Views of a list of slices (a module's parameters).
  ConstParameterViews<T> views(const std::vector<int>& slices) const {
    ConstParameterViews<T> list;
    for (int index : slices) list.push_back(params.matrix(index));
    return list;
  }
  ParameterViews<T> views(const std::vector<int>& slices) {
    ParameterViews<T> list;
    for (int index : slices) list.push_back(params.matrix(index));
    return list;
  }
  // Block l of a stack of mixer blocks (model.block = "mixer"), its mixer's parameters and W_v.
  const Layer<T>& layer(int l) const { return dynamic_cast<const Layer<T>&>(*blocks[l]); }
  ParameterViews<T> mixer_parameters(int l) { return views(layer(l).mixer_slices); }
  ConstParameterViews<T> mixer_parameters(int l) const { return views(layer(l).mixer_slices); }
  MatrixMap<T> w_v(int l) { return params.matrix(layer(l).w_v_slice); }
  ConstMatrixMap<T> w_v(int l) const { return params.matrix(layer(l).w_v_slice); }

  int n, d, width, vocab = 0;
  ModelConfig config;
  LayerConfig layer_config;
  const BlockKind* kind = nullptr;                      // model.block
  std::vector<std::shared_ptr<const Block<T>>> blocks;  // the stack, built by `kind`
  // Set by kinds that read them (docs/transformer.md §1): E (vocab×D, token input only), P (n×D),
  // and the final norm (token input only); modules hold no state, so copies share them.
  int token_table = -1, position_table = -1;
  std::shared_ptr<const Module<T>> final_norm;
  std::vector<int> final_norm_slices;
  Parameters<T> params;
};

// A transformer block on the tape: its input and output and each head's mixer graph.
struct BlockGraph {
  Var input, output;
  std::vector<MixerGraph> heads;  // op by op only: a fused block exposes no M
  std::string kernel;             // "fused" or "composite"
};

template <class T>
struct ModelGraph {
  Var x;       // the input X, [B, n, d]; token ids [B, n, 1] for token input
  Var stream;  // H_0, [B, n, D]: X itself when D = d, else [X, 0]; E[x] + P for tokens
  std::vector<LayerGraph<T>> layers;  // mixer blocks
  std::vector<BlockGraph> blocks;     // transformer blocks
  // The output Y, [B, n, d]: H_L itself when D = d, else its first d channels; for token input
  // the final norm's output [B, n, D], which the task's tied head reads with `token_table`.
  Var y;
  Var token_table;  // E on the tape (token input), shared by the embedding and the head
};

// Records the model for `batch` samples, as one recipe: the stream's input (X, zero-padded to the
// width, or the token embedding E[x]), plus P where the model has it; each block in turn; the
// output (the first d channels, or the final norm that the task's tied head reads). With
// `with_grads` the parameters get gradients.
template <class T>
ModelGraph<T> record_model(Tape<T>& tape, Model<T>& model, int batch, bool with_grads,
                           LayerKernels kernels = LayerKernels::kFused) {
  ModelGraph<T> graph;
  // A stream as wide as the data needs neither padding nor slicing: the single layer of
  // docs/experiment.md §2 is recorded op for op as before.
  const bool padded = model.width != model.d;
  Var h;
  if (model.tokens()) {
    graph.x = tape.input(Shape{batch, model.n, 1}, "tokens");
    graph.token_table = parameter_node(tape, model.params, model.token_table, with_grads);
    h = embed(tape, graph.x, graph.token_table, "E[x]");
  } else {
    graph.x = tape.input(Shape{batch, model.n, model.d}, "X");
    h = padded ? pad_columns(tape, graph.x, model.width, "H_0") : graph.x;
  }
  if (model.position_table >= 0)
    h = add(tape, h, parameter_node(tape, model.params, model.position_table, with_grads),
            model.tokens() ? "E[x]+P" : "H_0+P");
  graph.stream = h;
  for (const auto& block : model.blocks)
    h = block->record(tape, model, h, with_grads, kernels, graph);
  if (model.tokens()) {
    std::vector<Var> norm;
    for (int index : model.final_norm_slices)
      norm.push_back(parameter_node(tape, model.params, index, with_grads));
    graph.y = model.final_norm->record(tape, h, norm).out;
  } else {
    graph.y = padded ? leading_columns(tape, h, model.d, "Y") : h;
  }
  return graph;
}

}  // namespace ufl::model
