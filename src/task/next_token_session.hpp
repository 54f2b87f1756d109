#pragma once
// The next_token task on the tape (docs/transformer.md §1): the model reads n token ids, its final
// norm's output goes through the tied unembedding (logits = norm(H_L)·Eᵀ) into the cross-entropy of
// each position's next token, in nats, weighted per position (mqar scores only the values after
// queries). The held-out metric is the mean validation loss over the fixed validation windows.
#include <memory>

#include "data/tokens.hpp"
#include "model/model.hpp"
#include "task/token_ends.hpp"
#include "train/session.hpp"

namespace ufl::task {

// One tape for `batch` windows: the model and the loss per window.
struct TokenGraph {
  model::ModelGraph<float> model;
  Var targets, weights;  // [B, n, 1]: the next token of each position and its weight
  Var loss, correct;     // [B, 1, 1]: per window, the weighted mean cross-entropy and accuracy
};
TokenGraph record_token_graph(Tape<float>& tape, model::Model<float>& model, int batch,
                              bool with_grads,
                              model::LayerKernels kernels = model::LayerKernels::kFused);
// Puts window `s` of `split` into slot `slot` of the graph's inputs.
void load_window(Tape<float>& tape, const TokenGraph& graph, const data::TokenSplit& split, int s,
                 int slot);

// Validation loss and accuracy over every window of a split, in fixed order (the same at any
// thread count), and the per-window outputs for the analysis.
struct TokenScores {
  double loss = 0, accuracy = 0;  // means over the windows
};
class TokenEvaluator {
 public:
  // kComposite records every head op by op, so that `visit` can read each head's M.
  TokenEvaluator(model::Model<float>& model, int max_windows,
                 model::LayerKernels kernels = model::LayerKernels::kFused);
  // Over the first `windows` windows of the split (all when `windows` < 0). `visit`, when given,
  // sees each window's graph outputs after its chunk's forward pass (slot = the window's place
  // in the chunk). `edit`, when given, may change per-sample values during each forward pass
  // (Tape::ForwardEdit: an intervention, such as truncating each head's M).
  TokenScores score(const data::TokenSplit& split, int windows = -1,
                    const std::function<void(const TokenGraph&, const Tape<float>&, int window,
                                             int slot)>& visit = {},
                    const Tape<float>::ForwardEdit& edit = {});
  const TokenGraph& graph() const { return graph_; }
  int chunk() const { return chunk_; }

 private:
  int chunk_;
  Tape<float> tape_;
  TokenGraph graph_;
};

class NextTokenSession : public train::Session {
 public:
  NextTokenSession(const data::TokenDataset& data, model::Model<float>& model, int batch,
                   model::LayerKernels kernels = model::LayerKernels::kFused);

  int train_count() const override { return data_.train.count(); }
  void load_sample(int slot, int index) override;
  Tape<float>& tape() override { return tape_; }
  Var loss() const override { return loss_; }
  double task_loss() const override { return tape_.value(loss_).data[0]; }
  double penalty() const override { return 0; }
  double evaluate(int observed,
                  const std::function<void(const model::SampleOutputs&)>& observe) override;
  std::vector<std::string> kernels() const override;

 private:
  const data::TokenDataset& data_;
  Tape<float> tape_;
  TokenGraph graph_;
  Var loss_;
  TokenEvaluator evaluator_;
};

}  // namespace ufl::task
