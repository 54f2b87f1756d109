#pragma once
// The next_token task's two ends of the stack (docs/transformer.md §1) and its loss. The input is
// n token ids of a vocabulary, embedded by the token table E (vocab×D, GPT-2's N(0, init_std²));
// every head's M is causal; the output is a final norm of H_L, read by the tied unembedding,
// logits = norm(H_L)·Eᵀ, into the cross-entropy of each position's next token (one fused op,
// tape/ops/cross_entropy.hpp).
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/model.hpp"
#include "model/modules/norm.hpp"

namespace ufl::task {

// The token table E's slice in a model built with token ends (the input end's one slice).
template <class T>
int token_table(const model::Model<T>& model) {
  if (model.input_end.size() != 1)
    throw std::logic_error("token_table: the model was not built with token ends");
  return model.input_end.front();
}

template <class T>
class TokenEnds : public model::StackEnds<T> {
 public:
  explicit TokenEnds(int vocab) : vocab_(vocab) {}

  bool causal() const override { return true; }
  std::vector<int> build_input(model::Model<T>& model) const override {
    return {model.params.add(0, "E", "E", vocab_, model.width)};
  }
  std::vector<int> build_output(model::Model<T>& model) const override {
    std::vector<int> slices;
    for (const model::TensorSpec& spec : final_norm(model).parameters())
      slices.push_back(
          model.params.add(model.config.depth - 1, spec.name, spec.name, spec.rows, spec.cols));
    return slices;
  }
  void initialize_input(model::Model<T>& model, data::Rng& rng) const override {
    MatrixMap<T> matrix = model.params.matrix(token_table(model));
    for (Eigen::Index e = 0; e < matrix.size(); ++e)
      matrix.data()[e] = T(model.config.init_std * rng.normal());
  }
  void initialize_output(model::Model<T>& model, data::Rng& rng) const override {
    final_norm(model).initialize(model.views(model.output_end), rng);
  }
  std::string input_name() const override { return "E[x]"; }
  Var record_input(Tape<T>& tape, model::Model<T>& model, int batch, bool with_grads,
                   model::ModelGraph<T>& graph) const override {
    graph.x = tape.input(Shape{batch, model.n, 1}, "tokens");
    graph.tied_table = model::parameter_node(tape, model.params, token_table(model), with_grads);
    return embed(tape, graph.x, graph.tied_table, input_name());
  }
  Var record_output(Tape<T>& tape, model::Model<T>& model, Var h, bool with_grads) const override {
    std::vector<Var> norm;
    for (int index : model.output_end)
      norm.push_back(model::parameter_node(tape, model.params, index, with_grads));
    return final_norm(model).record(tape, h, norm).out;
  }

 private:
  // The final norm holds no state but its kind and width: made where it is used.
  static model::NormModule<T> final_norm(const model::Model<T>& model) {
    return model::NormModule<T>("final_norm", model::norm_kind(model.config.norm), model.width);
  }
  int vocab_;
};

// The ends for a vocabulary of `vocab` tokens, to build a model with.
template <class T>
std::shared_ptr<const model::StackEnds<T>> make_token_ends(int vocab) {
  return std::make_shared<TokenEnds<T>>(vocab);
}

// The loss of a model recorded with token ends: per window the weighted mean cross-entropy of
// each position's next token (`targets`, `weights`: [B, n, 1]) and the accuracy.
template <class T>
CrossEntropyGraph record_token_loss(Tape<T>& tape, const model::ModelGraph<T>& graph, Var targets,
                                    Var weights) {
  return tied_cross_entropy(tape, graph.y, graph.tied_table, targets, weights);
}

}  // namespace ufl::task
