#pragma once
// How the transformer block (its kind is transformer_block.cpp) builds, initialises and records
// its blocks: TransformerBlock<T>'s members, compiled for float in transformer_block.cpp and for
// double with the tests (model/block.hpp, build_blocks).
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/blocks/transformer_block.hpp"
#include "model/modules/mlp.hpp"
#include "model/modules/norm.hpp"

namespace ufl::model {

template <class T>
void TransformerBlock<T>::initialize(Model<T>& model, data::Rng& rng) const {
  for (std::size_t b = 0; b < branches.size(); ++b)
    for (std::size_t m = 0; m < branches[b].size(); ++m)
      branches[b][m]->initialize(model.views(slices[b][m]), rng);
}

template <class T>
Var TransformerBlock<T>::record(Tape<T>& tape, Model<T>& model, Var h, bool with_grads,
                                LayerKernels kernels, ModelGraph<T>& graph) const {
  auto nodes = [&](const std::vector<int>& indices) {
    std::vector<Var> vars;
    for (int index : indices) vars.push_back(parameter_node(tape, model.params, index, with_grads));
    return vars;
  };
  BlockGraph recorded;
  recorded.input = h;
  recorded.kernel = "composite";
  for (std::size_t b = 0; b < branches.size(); ++b) {
    // A branch [norm, module] as one fused op where the module has one (docs/transformer.md §8);
    // op by op otherwise, and always for kComposite (the reference, which exposes M).
    if (kernels != LayerKernels::kComposite && branches[b].size() == 2)
      if (const auto* norm = dynamic_cast<const NormModule<T>*>(branches[b][0].get())) {
        const ModuleGraph fused = branches[b][1]->record_branch(
            tape, h, norm->inputs(nodes(slices[b][0])), nodes(slices[b][1]));
        if (fused.out.valid()) {
          h = fused.out;
          recorded.kernel = "fused";
          continue;
        }
      }
    Var branch = h;
    for (std::size_t m = 0; m < branches[b].size(); ++m) {
      ModuleGraph out = branches[b][m]->record(tape, branch, nodes(slices[b][m]));
      branch = out.out;
      for (MixerGraph& head : out.heads) recorded.heads.push_back(head);
    }
    h = add(tape, h, branch, "residual");
  }
  recorded.output = h;
  graph.blocks.push_back(recorded);
  return h;
}

// P, then per block its branches [norm1, heads] and [norm2, mlp] (no MLP branch at
// mlp_ratio 0), slices named blockL/….
template <class T>
void build_transformer_blocks(Model<T>& model, const Mixer<T>& chosen, bool causal) {
  const int width = model.width;
  const ModelConfig& config = model.config;
  const LayerConfig& layer = model.layer_config;
  Parameters<T>& params = model.params;
  if (width % layer.heads != 0) throw std::invalid_argument("layer.heads must divide model.width");
  // Float input gets P too: without it a non-causal block is permutation-equivariant and
  // cannot tell which row precedes another (Section 7's induction task needs that;
  // docs/transformer.md §7).
  if (config.position_embedding) model.position_table = params.add(0, "P", "P", model.n, width);
  const NormKind& norm = norm_kind(config.norm);
  LayerShape head{model.n, width, layer.rank};
  head.transformer = true;
  head.causal = causal;
  head.value_cols = width / layer.heads;
  head.init_std = config.init_std;
  for (int l = 0; l < config.depth; ++l) {
    auto block = std::make_shared<TransformerBlock<T>>();
    // mlp_ratio 0: heads only, as Zoology's MQAR blocks (docs/transformer.md §1).
    block->branches.resize(config.mlp_ratio > 0 ? 2 : 1);
    block->branches[0].push_back(std::make_shared<NormModule<T>>("norm1", norm, width));
    block->branches[0].push_back(
        std::make_shared<HeadsModule<T>>(chosen, head, layer, layer.heads, config.depth));
    if (config.mlp_ratio > 0) {
      block->branches[1].push_back(std::make_shared<NormModule<T>>("norm2", norm, width));
      block->branches[1].push_back(std::make_shared<MlpModule<T>>(width, config.mlp_ratio * width,
                                                                  config.init_std, config.depth));
    }
    const std::string prefix = "block" + std::to_string(l + 1) + "/";
    for (const ModuleList<T>& branch : block->branches) {
      block->slices.emplace_back();
      for (const auto& module : branch) {
        block->slices.back().emplace_back();
        for (const TensorSpec& spec : module->parameters())
          block->slices.back().back().push_back(
              params.add(l, spec.name, prefix + spec.name, spec.rows, spec.cols));
      }
    }
    model.blocks.push_back(std::move(block));
  }
}

}  // namespace ufl::model
