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
  // Part k of block l (model/block.hpp: a layer of a mixer block, a head of a transformer
  // block), its mixer's parameters and its W_v.
  const MixerPart<T>& part(int l, int k = 0) const { return blocks[l]->parts[k]; }
  ParameterViews<T> mixer_parameters(int l, int k = 0) { return views(part(l, k).mixer_slices); }
  ConstParameterViews<T> mixer_parameters(int l, int k = 0) const {
    return views(part(l, k).mixer_slices);
  }
  MatrixMap<T> w_v(int l, int k = 0) { return params.matrix(part(l, k).value_slice); }
  ConstMatrixMap<T> w_v(int l, int k = 0) const { return params.matrix(part(l, k).value_slice); }

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

template <class T>
struct ModelGraph {
  Var x;       // the input X, [B, n, d]; token ids [B, n, 1] for token input
  Var stream;  // H_0, [B, n, D], as the input end records it, plus P where the model has it
  std::vector<BlockGraph> blocks;  // one per block, in order (model/block.hpp)
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

// Where a part is: block `block`, its part `part` (Block::parts, BlockGraph::parts).
struct PartIndex {
  int block = 0, part = 0;
};

// The indices of block l's parts measured `how` (model/block.hpp), in order: head k of a block
// is its k-th part measured as a head.
template <class T>
std::vector<int> part_indices(const Model<T>& model, int l, Measured how) {
  std::vector<int> found;
  const std::vector<MixerPart<T>>& parts = model.blocks[l]->parts;
  for (int k = 0; k < static_cast<int>(parts.size()); ++k)
    if (parts[k].measured == how) found.push_back(k);
  return found;
}

// The model's parts measured `how`, block by block, in order: layer l of a stack measured layer
// by layer is the l-th part measured as a layer.
template <class T>
std::vector<PartIndex> parts_measured(const Model<T>& model, Measured how) {
  std::vector<PartIndex> found;
  for (int l = 0; l < model.depth(); ++l)
    for (int k : part_indices(model, l, how)) found.push_back({l, k});
  return found;
}

// Whether every part of the model is measured `how` (a model of mixer blocks: as layers).
template <class T>
bool every_part_measured(const Model<T>& model, Measured how) {
  for (const auto& block : model.blocks)
    for (const MixerPart<T>& part : block->parts)
      if (part.measured != how) return false;
  return true;
}

}  // namespace ufl::model
