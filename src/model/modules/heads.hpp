#pragma once
// The mixing module of a transformer block (docs/transformer.md §2): h heads, each its own mixer
// with its own parameters reading the whole (normalised) stream x and mixing its own value slice
// x·W_v,k (D × D/h); the heads' outputs are concatenated and projected by W_o (D × D). W_v,k from
// N(0, σ²), W_o from N(0, (σ/√(2L))²) as it writes into the residual stream (GPT-2). Each head
// may be of another mixer (a hybrid block, docs/transformer.md §9): its parameters, kernel inputs
// and record are its own mixer's, in the heads' order.
#include <cmath>
#include <utility>
#include <vector>

#include "model/block.hpp"
#include "model/module.hpp"
#include "model/modules/heads_kernel.hpp"
#include "tape/ops.hpp"

namespace ufl::model {

template <class T>
class HeadsModule : public Module<T> {
 public:
  // One head per entry of `mixers`, each of its mixer.
  HeadsModule(std::vector<const Mixer<T>*> mixers, const LayerShape& head_shape,
              const LayerConfig& config, int depth)
      : mixers_(std::move(mixers)), shape_(head_shape), config_(config), depth_(depth) {
    heads_ = static_cast<int>(mixers_.size());
    first_.push_back(0);  // head k's parameters are [first_[k], first_[k + 1]): its mixer's, W_v
    for (const Mixer<T>* mixer : mixers_)
      first_.push_back(first_.back() + static_cast<int>(mixer->parameters(shape_, config_).size()) +
                       1);
  }
  std::string name() const override { return "heads"; }
  // The heads as the analysis reads them (model/block.hpp): head k's mixer, shape, its mixer's
  // slices and W_v,k's among `slices`, the model's slices of this module's parameters().
  std::vector<MixerPart<T>> parts(const std::vector<int>& slices) const {
    std::vector<MixerPart<T>> heads;
    for (int k = 0; k < heads_; ++k) {
      MixerPart<T> head;
      head.mixer = mixers_[k];
      head.shape = shape_;
      head.mixer_slices.assign(slices.begin() + first_[k], slices.begin() + value_index(k));
      head.value_slice = slices[value_index(k)];
      head.measured = Measured::kAsHead;
      heads.push_back(std::move(head));
    }
    return heads;
  }

  std::vector<TensorSpec> parameters() const override {
    std::vector<TensorSpec> specs;
    for (int k = 0; k < heads_; ++k) {
      const std::string prefix = "head" + std::to_string(k + 1) + "/";
      for (TensorSpec spec : mixers_[k]->parameters(shape_, config_)) {
        spec.name = prefix + spec.name;
        specs.push_back(spec);
      }
      specs.push_back({prefix + "W_v", shape_.d, shape_.values()});
    }
    specs.push_back({"W_o", shape_.d, shape_.d});
    return specs;
  }
  void initialize(ParameterViews<T> params, data::Rng& rng) const override {
    auto normal = [&rng](MatrixMap<T>& matrix, double std) {
      for (Eigen::Index e = 0; e < matrix.size(); ++e) matrix.data()[e] = T(std * rng.normal());
    };
    for (int k = 0; k < heads_; ++k) {
      ParameterViews<T> head(params.begin() + first_[k], params.begin() + value_index(k));
      mixers_[k]->initialize(head, shape_, config_, rng);
      normal(params[value_index(k)], shape_.init_std);
    }
    normal(params.back(), shape_.init_std / std::sqrt(2.0 * depth_));
  }
  ModuleGraph record(Tape<T>& tape, Var x, const std::vector<Var>& params) const override {
    ModuleGraph graph;
    std::vector<Var> outputs;
    for (int k = 0; k < heads_; ++k) {
      const std::vector<Var> head(params.begin() + first_[k], params.begin() + value_index(k));
      graph.heads.push_back(mixers_[k]->record(tape, x, head, params[value_index(k)], shape_,
                                               LayerKernels::kComposite, false));
      graph.heads.back().input = x;
      outputs.push_back(graph.heads.back().out);
    }
    const Var joined = heads_ == 1 ? outputs.front() : concat_columns(tape, outputs, "heads");
    graph.out = matmul(tape, joined, params.back(), false, false, "W_o");
    return graph;
  }

  // x + W_o·[heads](norm(x)) as one op (heads_kernel.hpp): the heads' projection weights packed
  // side by side into W_in once per step, each head's own inputs (offsets, gate, operator) from
  // its mixer (Mixer::record_head_inputs).
  ModuleGraph record_branch(Tape<T>& tape, Var x, const NormInputs& norm,
                            const std::vector<Var>& params) const override {
    auto op = std::make_unique<HeadsBranchOp<T>>();
    const Shape shape = tape.shape(x);  // a copy: recording moves the tape's nodes
    HeadsLayout& layout = op->layout;
    layout.n = shape.rows;
    layout.width = shape_.d;
    std::vector<Var> inputs = {x, norm.gain};
    if (norm.bias.valid()) {
      layout.bias = static_cast<int>(inputs.size());
      inputs.push_back(norm.bias);
    }
    std::vector<Var> packed;
    std::vector<HeadInputs> head_inputs;
    int column = 0;
    for (int k = 0; k < heads_; ++k) {
      const std::vector<Var> head(params.begin() + first_[k], params.begin() + value_index(k));
      head_inputs.push_back(mixers_[k]->record_head_inputs(tape, head, shape_));
      const HeadInputs& in = head_inputs.back();
      HeadSlot slot;
      if (in.scores()) {
        slot.query_col = column;
        slot.key_col = column + shape_.r;
        column += 2 * shape_.r;
        packed.push_back(in.query_weights);
        packed.push_back(in.key_weights);
        slot.score = {shape_.n,      shape_.r,        shape_.values(),
                      shape_.causal, in.gate.valid(), in.score_function};
      }
      slot.value_col = column;
      column += shape_.values();
      packed.push_back(params[value_index(k)]);
      layout.heads.push_back(slot);
    }
    layout.projections = column;
    layout.w_in = static_cast<int>(inputs.size());
    inputs.push_back(packed.size() == 1 ? packed.front() : concat_columns(tape, packed, "W_in"));
    layout.w_o = static_cast<int>(inputs.size());
    inputs.push_back(params.back());
    for (int k = 0; k < heads_; ++k) {
      const HeadInputs& in = head_inputs[k];
      HeadSlot& slot = layout.heads[k];
      for (auto [index, var] : {std::pair{&slot.query_offsets, in.query_offsets},
                                {&slot.key_offsets, in.key_offsets},
                                {&slot.gate, in.gate},
                                {&slot.fixed_operator, in.fixed_operator}})
        if (var.valid()) {
          *index = static_cast<int>(inputs.size());
          inputs.push_back(var);
        }
    }
    op->inputs = std::move(inputs);
    op->batch = shape.batch;
    op->plan_fields();
    return {tape.record(std::move(op), shape, "heads_branch"), {}};
  }

 private:
  int value_index(int k) const { return first_[k + 1] - 1; }  // head k's W_v among the parameters

  std::vector<const Mixer<T>*> mixers_;  // head k's mixer
  LayerShape shape_;
  LayerConfig config_;
  int heads_ = 0, depth_;
  std::vector<int> first_;  // head k's first parameter; first_[heads_] is W_o
};

}  // namespace ufl::model
