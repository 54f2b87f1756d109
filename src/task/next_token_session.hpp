#pragma once
// The next_token task on the tape (docs/transformer.md §1): the model reads n token ids, its final
// norm's output goes through the tied unembedding (logits = norm(H_L)·Eᵀ) into the cross-entropy of
// each position's next token, in nats, weighted per position by its label (data/tokens.hpp: mqar
// scores only the values after queries). The held-out metric is the mean validation loss over the
// fixed validation windows; where the data's positions carry two or more scored labels (copy_text:
// copied and fresh), the loss and accuracy of each label are reported beside it
// (docs/transformer.md §13).
#include <memory>

#include "data/tokens.hpp"
#include "model/model.hpp"
#include "task/token_ends.hpp"
#include "train/session.hpp"

namespace ufl::task {

// The labels of a split's positions reported apart (indices into split.labels): those scored
// (weight > 0) when there are two or more; none otherwise (a single scored label is the total).
std::vector<int> reported_labels(const data::TokenSplit& split);
// loss.csv's held-out columns beyond val_loss for such a split: val_accuracy, then for each
// reported label val_loss_<label> and val_accuracy_<label>; none without reported labels.
std::vector<std::string> held_out_columns(const data::TokenSplit& split);

// One tape for `batch` windows: the model and the loss per window.
struct TokenGraph {
  model::ModelGraph<float> model;
  Var targets, weights;  // [B, n, 1]: the next token of each position and its weight
  Var loss, correct;     // [B, 1, 1]: per window, the weighted mean cross-entropy and accuracy
  // Per reported label (`labels`, indices into the split's labels): [B, n, 1] weights that keep
  // only that label's positions, and the mean cross-entropy and accuracy over them per window.
  std::vector<int> labels;
  std::vector<Var> label_weights;
  std::vector<CrossEntropyGraph> label_scores;
};
TokenGraph record_token_graph(Tape<float>& tape, model::Model<float>& model, int batch,
                              bool with_grads,
                              model::LayerKernels kernels = model::LayerKernels::kFused,
                              const std::vector<int>& labels = {});
// Puts window `s` of `split` into slot `slot` of the graph's inputs.
void load_window(Tape<float>& tape, const TokenGraph& graph, const data::TokenSplit& split, int s,
                 int slot);

// One reported label's scores: the loss and accuracy over all its positions of the windows
// scored (pooled: each position counts once).
struct LabelScores {
  std::string name;
  double loss = 0, accuracy = 0;
  std::int64_t positions = 0;
};

// Validation loss and accuracy over every window of a split, in fixed order (the same at any
// thread count), and the per-window outputs for the analysis.
struct TokenScores {
  double loss = 0, accuracy = 0;    // means over the windows
  std::vector<LabelScores> labels;  // the evaluator's reported labels, in its order
  // accuracy, then each label's loss and accuracy: the values of held_out_columns.
  std::vector<double> held_out_values() const;
};
class TokenEvaluator {
 public:
  // kComposite records every head op by op, so that `visit` can read each head's M. `labels`:
  // the labels scored apart (reported_labels of the splits it will score).
  TokenEvaluator(model::Model<float>& model, int max_windows,
                 model::LayerKernels kernels = model::LayerKernels::kFused,
                 const std::vector<int>& labels = {});
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
  std::vector<double> held_out_values() const override { return held_out_; }
  std::vector<std::string> kernels() const override;

 private:
  const data::TokenDataset& data_;
  Tape<float> tape_;
  TokenGraph graph_;
  Var loss_;
  TokenEvaluator evaluator_;
  std::vector<double> held_out_;  // of the last evaluation
};

}  // namespace ufl::task
