#pragma once
// The model: a list of blocks over one flat parameter buffer (as micrograd's MLP.layers), between
// the two ends its task gives it, and its forward graph on the tape (docs/section7.md §1):
//   H_0 = [X, 0] (n×D, the input zero-padded to the stream's width), H_l = block_l(H_{l−1}),
//   Y = H_L[:, :d].
// What a block is, and everything that depends on it, belongs to its kind (model/block.hpp); what
// the stack reads and what the loss reads of it, to its ends (model/stack_ends.hpp).
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
#include "model/stack_ends.hpp"

namespace ufl::model {

template <class T>
class Model {
 public:
  // n positions and d channels of the data; the stack and the layer as the config says; the
  // task's two ends (null: float n×d samples, SampleEnds).
  Model(int n, int d, const ModelConfig& model, const LayerConfig& layer,
        std::shared_ptr<const StackEnds<T>> ends = nullptr);

  int depth() const { return static_cast<int>(blocks.size()); }
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

  int n, d, width;
  ModelConfig config;
  LayerConfig layer_config;
  const BlockKind* kind = nullptr;                      // model.block
  std::vector<std::shared_ptr<const Block<T>>> blocks;  // the stack, built by `kind`
  std::shared_ptr<const StackEnds<T>> ends;
  std::vector<int> input_end, output_end;  // the ends' slices, before and after the blocks'
  int position_table = -1;  // P (n×D), set by kinds that read it (docs/transformer.md §1)
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
  Var stream;  // H_0, [B, n, D], as the input end records it, plus P where the model has it
  std::vector<LayerGraph<T>> layers;  // mixer blocks
  std::vector<BlockGraph> blocks;     // transformer blocks
  // The output Y, as the output end records it: [B, n, d], H_L itself when D = d, else its first d
  // channels; for token input the final norm's output [B, n, D].
  Var y;
  // A table read at both ends: the token task's E, tied (task/token_ends.hpp).
  Var tied_table;
};

// Records the model for `batch` samples, as one recipe: the input end (X, zero-padded to the
// width, or the token embedding E[x]), plus P where the model has it; each block in turn; the
// output end (the first d channels, or the final norm that the task's tied unembedding reads). With
// `with_grads` the parameters get gradients.
template <class T>
ModelGraph<T> record_model(Tape<T>& tape, Model<T>& model, int batch, bool with_grads,
                           LayerKernels kernels = LayerKernels::kFused) {
  ModelGraph<T> graph;
  Var h = model.ends->record_input(tape, model, batch, with_grads, graph);
  if (model.position_table >= 0)
    h = add(tape, h, parameter_node(tape, model.params, model.position_table, with_grads),
            model.ends->input_name() + "+P");
  graph.stream = h;
  for (const auto& block : model.blocks)
    h = block->record(tape, model, h, with_grads, kernels, graph);
  graph.y = model.ends->record_output(tape, model, h, with_grads);
  return graph;
}

}  // namespace ufl::model
