#pragma once
// The model: a list of layers over one flat parameter buffer (as micrograd's MLP.layers), and its
// forward graph on the tape (docs/section7.md §1):
//   H_0 = [X, 0] (n×D, the input zero-padded to the stream's width), H_l = layer_l(H_{l−1}),
//   Y = H_L[:, :d].
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
#include "model/modules/heads.hpp"
#include "model/modules/mlp.hpp"
#include "model/modules/norm.hpp"

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

  int depth() const { return static_cast<int>(layers.size() + blocks.size()); }
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
  ParameterViews<T> mixer_parameters(int l) {
    ParameterViews<T> views;
    for (int index : layers[l].mixer_slices) views.push_back(params.matrix(index));
    return views;
  }
  ConstParameterViews<T> mixer_parameters(int l) const {
    ConstParameterViews<T> views;
    for (int index : layers[l].mixer_slices) views.push_back(params.matrix(index));
    return views;
  }
  MatrixMap<T> w_v(int l) { return params.matrix(layers[l].w_v_slice); }
  ConstMatrixMap<T> w_v(int l) const { return params.matrix(layers[l].w_v_slice); }

  int n, d, width, vocab = 0;
  ModelConfig config;
  LayerConfig layer_config;
  std::vector<Layer<T>> layers;               // model.block = "mixer"
  std::vector<TransformerBlock<T>> blocks;    // model.block = "transformer"
  int token_table = -1, position_table = -1;  // E (vocab×D, token input only) and P (n×D)
  std::shared_ptr<const Module<T>>
      final_norm;  // token input only (modules hold no state: shared by copies)
  std::vector<int> final_norm_slices;
  Parameters<T> params;

 private:
  // Transformer blocks (docs/transformer.md §1): E and P, then per block its branches
  // [norm1, heads] and [norm2, mlp], then the final norm; slices named blockL/….
  void add_transformer(const Mixer<T>& chosen, bool causal);
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

// The parameter `index` of `params` as a tape node.
template <class T>
Var parameter_node(Tape<T>& tape, Parameters<T>& params, int index, bool with_grads) {
  const ParameterSlice& slice = params.slice(index);
  return tape.parameter(params.value(index), with_grads ? params.grad(index) : nullptr, slice.rows,
                        slice.cols, slice.name);
}

// Token input, transformer blocks and the final norm (docs/transformer.md §1).
template <class T>
ModelGraph<T> record_transformer(Tape<T>& tape, Model<T>& model, int batch, bool with_grads,
                                 LayerKernels kernels) {
  ModelGraph<T> graph;
  auto nodes = [&](const std::vector<int>& slices) {
    std::vector<Var> vars;
    for (int index : slices) vars.push_back(parameter_node(tape, model.params, index, with_grads));
    return vars;
  };
  Var h;
  if (model.tokens()) {
    graph.x = tape.input(Shape{batch, model.n, 1}, "tokens");
    graph.token_table = parameter_node(tape, model.params, model.token_table, with_grads);
    h = embed(tape, graph.x, graph.token_table, "E[x]");
    if (model.position_table >= 0)
      h = add(tape, h, parameter_node(tape, model.params, model.position_table, with_grads),
              "E[x]+P");
  } else {
    graph.x = tape.input(Shape{batch, model.n, model.d}, "X");
    h = model.width != model.d ? pad_columns(tape, graph.x, model.width, "H_0") : graph.x;
    if (model.position_table >= 0)
      h = add(tape, h, parameter_node(tape, model.params, model.position_table, with_grads),
              "H_0+P");
  }
  graph.stream = h;
  for (const TransformerBlock<T>& block : model.blocks) {
    BlockGraph recorded;
    recorded.input = h;
    recorded.kernel = "composite";
    for (std::size_t b = 0; b < block.branches.size(); ++b) {
      // A branch [norm, module] as one fused op where the module has one (docs/transformer.md
      // §8); op by op otherwise, and always for kComposite (the reference, which exposes M).
      if (kernels != LayerKernels::kComposite && block.branches[b].size() == 2)
        if (const auto* norm = dynamic_cast<const NormModule<T>*>(block.branches[b][0].get())) {
          const ModuleGraph fused = block.branches[b][1]->record_branch(
              tape, h, norm->inputs(nodes(block.slices[b][0])), nodes(block.slices[b][1]));
          if (fused.out.valid()) {
            h = fused.out;
            recorded.kernel = "fused";
            continue;
          }
        }
      Var branch = h;
      for (std::size_t m = 0; m < block.branches[b].size(); ++m) {
        ModuleGraph out = block.branches[b][m]->record(tape, branch, nodes(block.slices[b][m]));
        branch = out.out;
        for (MixerGraph& head : out.heads) recorded.heads.push_back(head);
      }
      h = add(tape, h, branch, "residual");
    }
    recorded.output = h;
    graph.blocks.push_back(recorded);
  }
  if (model.tokens())
    graph.y = model.final_norm->record(tape, h, nodes(model.final_norm_slices)).out;
  else
    graph.y = model.width != model.d ? leading_columns(tape, h, model.d, "Y") : h;
  return graph;
}

// Records the model for `batch` samples. With `with_grads` the parameters get gradients.
template <class T>
ModelGraph<T> record_model(Tape<T>& tape, Model<T>& model, int batch, bool with_grads,
                           LayerKernels kernels = LayerKernels::kFused) {
  if (!model.blocks.empty()) return record_transformer(tape, model, batch, with_grads, kernels);
  ModelGraph<T> graph;
  graph.x = tape.input(Shape{batch, model.n, model.d}, "X");
  // A stream as wide as the data needs neither padding nor slicing: the single layer of
  // docs/experiment.md §2 is recorded op for op as before.
  const bool padded = model.width != model.d;
  graph.stream = padded ? pad_columns(tape, graph.x, model.width, "H_0") : graph.x;
  Var h = graph.stream;
  for (const Layer<T>& layer : model.layers) {
    graph.layers.push_back(
        record_layer(tape, layer, model.params, h, model.config.residual, with_grads, kernels));
    h = graph.layers.back().output;
  }
  graph.y = padded ? leading_columns(tape, h, model.d, "Y") : h;
  return graph;
}

}  // namespace ufl::model
