#pragma once
// How the transformer block (its kind is transformer_block.cpp) builds, initialises and records
// its blocks: TransformerBlock<T>'s members, compiled for float in transformer_block.cpp and for
// double with the tests (model/block.hpp, build_blocks).
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/blocks/transformer_block.hpp"
#include "model/modules/heads.hpp"
#include "model/modules/mlp.hpp"
#include "model/modules/norm.hpp"

namespace ufl::model {

template <class T>
void TransformerBlock<T>::initialize(Model<T>& model, data::Rng& rng) const {
  for (const Branch& branch : branches) {
    branch.norm->initialize(model.views(branch.norm_slices), rng);
    branch.module->initialize(model.views(branch.module_slices), rng);
  }
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
  for (const Branch& branch : branches) {
    // The branch as one fused op where its module has one (docs/transformer.md §8); op by op
    // otherwise, and always for kComposite (the reference, which exposes M).
    if (kernels != LayerKernels::kComposite) {
      const ModuleGraph fused = branch.module->record_branch(
          tape, h, branch.norm->inputs(nodes(branch.norm_slices)), nodes(branch.module_slices));
      if (fused.out.valid()) {
        h = fused.out;
        recorded.kernel = "fused";
        continue;
      }
    }
    const ModuleGraph normed = branch.norm->record(tape, h, nodes(branch.norm_slices));
    const ModuleGraph out = branch.module->record(tape, normed.out, nodes(branch.module_slices));
    for (const MixerGraph& head : out.heads) recorded.parts.push_back(head);
    h = add(tape, h, out.out, "residual");
  }
  recorded.output = h;
  graph.blocks.push_back(recorded);
  return h;
}

// P, then per block its branches [norm1, heads] and [norm2, mlp] (no MLP branch at
// mlp_ratio 0), slices named blockL/…; head k of each block is of mixers[k].
template <class T>
void build_transformer_blocks(Model<T>& model, const HeadMixers<T>& mixers, bool causal) {
  const int width = model.width;
  const ModelConfig& config = model.config;
  const LayerConfig& layer = model.layer_config;
  Parameters<T>& params = model.params;
  if (width % layer.heads != 0) throw std::invalid_argument("layer.heads must divide model.width");
  if (int(mixers.size()) != layer.heads)
    throw std::invalid_argument(
        "layer.mixer: one mixer per head (layer.heads = " + std::to_string(layer.heads) +
        "), got " + std::to_string(mixers.size()));
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
    const auto heads = std::make_shared<HeadsModule<T>>(mixers, head, layer, config.depth);
    auto add_branch = [&](const std::string& norm_name, std::shared_ptr<const Module<T>> module) {
      typename TransformerBlock<T>::Branch branch;
      branch.norm = std::make_shared<NormModule<T>>(norm_name, norm, width);
      branch.module = std::move(module);
      block->branches.push_back(std::move(branch));
    };
    add_branch("norm1", heads);
    // mlp_ratio 0: heads only, as Zoology's MQAR blocks (docs/transformer.md §1).
    if (config.mlp_ratio > 0)
      add_branch("norm2", std::make_shared<MlpModule<T>>(width, config.mlp_ratio * width,
                                                         config.init_std, config.depth));
    const std::string prefix = "block" + std::to_string(l + 1) + "/";
    auto add_slices = [&](const Module<T>& module, std::vector<int>& slices) {
      for (const TensorSpec& spec : module.parameters())
        slices.push_back(params.add(l, spec.name, prefix + spec.name, spec.rows, spec.cols));
    };
    for (auto& branch : block->branches) {
      add_slices(*branch.norm, branch.norm_slices);
      add_slices(*branch.module, branch.module_slices);
    }
    // The record the analysis reads: each head a part measured as a head, read through norm1.
    block->parts = heads->parts(block->branches[0].module_slices);
    block->input_norm = block->branches[0].norm_slices;
    model.blocks.push_back(std::move(block));
  }
}

}  // namespace ufl::model
