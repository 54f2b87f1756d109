#include "task/next_token_session.hpp"

#include <omp.h>

#include <algorithm>

#include "io/stop_request.hpp"
#include "tape/ops.hpp"

namespace ufl::task {

std::vector<int> reported_labels(const data::TokenSplit& split) {
  std::vector<int> scored;
  for (std::size_t k = 0; k < split.labels.size(); ++k)
    if (split.labels[k].weight > 0) scored.push_back(int(k));
  return scored.size() >= 2 ? scored : std::vector<int>{};
}

std::vector<std::string> held_out_columns(const data::TokenSplit& split) {
  const std::vector<int> labels = reported_labels(split);
  if (labels.empty()) return {};
  std::vector<std::string> columns = {"val_accuracy"};
  for (int label : labels) {
    columns.push_back("val_loss_" + split.labels[label].name);
    columns.push_back("val_accuracy_" + split.labels[label].name);
  }
  return columns;
}

std::vector<double> TokenScores::held_out_values() const {
  if (labels.empty()) return {};
  std::vector<double> values = {accuracy};
  for (const LabelScores& label : labels) {
    values.push_back(label.loss);
    values.push_back(label.accuracy);
  }
  return values;
}

TokenGraph record_token_graph(Tape<float>& tape, model::Model<float>& model, int batch,
                              bool with_grads, model::LayerKernels kernels,
                              const std::vector<int>& labels) {
  TokenGraph graph;
  graph.model = model::record_model(tape, model, batch, with_grads, kernels);
  graph.targets = tape.input(Shape{batch, model.n, 1}, "next_tokens");
  graph.weights = tape.input(Shape{batch, model.n, 1}, "weights");
  const CrossEntropyGraph entropy =
      record_token_loss(tape, graph.model, graph.targets, graph.weights);
  graph.loss = entropy.loss;
  graph.correct = entropy.correct;
  // Each reported label's loss: the same unembedding and cross-entropy, weighted by that label
  // alone.
  graph.labels = labels;
  for (std::size_t k = 0; k < labels.size(); ++k) {
    graph.label_weights.push_back(
        tape.input(Shape{batch, model.n, 1}, "label_weights" + std::to_string(k)));
    graph.label_scores.push_back(
        record_token_loss(tape, graph.model, graph.targets, graph.label_weights.back()));
  }
  return graph;
}

void load_window(Tape<float>& tape, const TokenGraph& graph, const data::TokenSplit& split, int s,
                 int slot) {
  const int n = split.n;
  const std::int32_t* window = split.window(s);
  const std::uint8_t* labels = split.label_of(s);
  float* inputs = tape.value(graph.model.x).data + std::size_t(slot) * n;
  float* targets = tape.value(graph.targets).data + std::size_t(slot) * n;
  float* weight = tape.value(graph.weights).data + std::size_t(slot) * n;
  for (int i = 0; i < n; ++i) {
    inputs[i] = float(window[i]);
    targets[i] = float(window[i + 1]);
    weight[i] = split.weight(s, i);
  }
  for (std::size_t k = 0; k < graph.labels.size(); ++k) {
    float* only = tape.value(graph.label_weights[k]).data + std::size_t(slot) * n;
    for (int i = 0; i < n; ++i) only[i] = labels != nullptr && labels[i] == graph.labels[k];
  }
}

TokenEvaluator::TokenEvaluator(model::Model<float>& model, int max_windows,
                               model::LayerKernels kernels, const std::vector<int>& labels)
    : chunk_(evaluation_chunk(max_windows, omp_get_max_threads())) {
  graph_ = record_token_graph(tape_, model, chunk_, false, kernels, labels);
  tape_.plan();
}

TokenScores TokenEvaluator::score(
    const data::TokenSplit& split, int windows,
    const std::function<void(const TokenGraph&, const Tape<float>&, int, int)>& visit,
    const Tape<float>::ForwardEdit& edit) {
  const int total = windows < 0 ? split.count() : std::min(windows, split.count());
  std::vector<double> loss(total, 0.0), correct(total, 0.0);
  // Per reported label and window: the sums of its positions' losses and hits, and their count.
  const std::size_t labels = graph_.labels.size();
  std::vector<double> label_loss(labels * total, 0.0), label_correct(labels * total, 0.0);
  std::vector<std::int64_t> label_positions(labels * total, 0);
  for (int first = 0; first < total; first += chunk_) {
    // A stop request leaves the pass incomplete; the caller checks it and discards the result.
    if (interrupt::stop_requested()) break;
    const int count = std::min(chunk_, total - first);
    // Unused slots of a last, short chunk repeat the first window; their outputs are ignored.
    for (int slot = 0; slot < chunk_; ++slot)
      load_window(tape_, graph_, split, first + (slot < count ? slot : 0), slot);
    tape_.forward(edit);
    for (int slot = 0; slot < count; ++slot) {
      loss[first + slot] = tape_.value(graph_.loss).sample(slot)[0];
      correct[first + slot] = tape_.value(graph_.correct).sample(slot)[0];
      for (std::size_t k = 0; k < labels; ++k) {
        const std::size_t at = k * total + std::size_t(first + slot);
        const float* only = tape_.value(graph_.label_weights[k]).sample(slot);
        for (int i = 0; i < split.n; ++i) label_positions[at] += only[i] > 0;
        // The label's mean over the window's positions of it, back to sums.
        label_loss[at] =
            tape_.value(graph_.label_scores[k].loss).sample(slot)[0] * double(label_positions[at]);
        label_correct[at] = tape_.value(graph_.label_scores[k].correct).sample(slot)[0] *
                            double(label_positions[at]);
      }
      if (visit) visit(graph_, tape_, first + slot, slot);
    }
  }
  TokenScores scores;
  for (int s = 0; s < total; ++s) {
    scores.loss += loss[s];
    scores.accuracy += correct[s];
  }
  scores.loss /= std::max(1, total);
  scores.accuracy /= std::max(1, total);
  for (std::size_t k = 0; k < labels; ++k) {
    LabelScores label{split.labels.at(std::size_t(graph_.labels[k])).name};
    for (int s = 0; s < total; ++s) {
      label.loss += label_loss[k * total + std::size_t(s)];
      label.accuracy += label_correct[k * total + std::size_t(s)];
      label.positions += label_positions[k * total + std::size_t(s)];
    }
    label.loss /= double(std::max<std::int64_t>(1, label.positions));
    label.accuracy /= double(std::max<std::int64_t>(1, label.positions));
    scores.labels.push_back(label);
  }
  return scores;
}

NextTokenSession::NextTokenSession(const data::TokenDataset& data, model::Model<float>& model,
                                   int batch, model::LayerKernels kernels)
    : data_(data),
      evaluator_(model, data.validation.count(), kernels, reported_labels(data.validation)) {
  graph_ = record_token_graph(tape_, model, batch, true, kernels);
  loss_ = column_mean(tape_, graph_.loss, 0, "cross_entropy");
  tape_.plan();
}

void NextTokenSession::load_sample(int slot, int index) {
  load_window(tape_, graph_, data_.train, index, slot);
}

double NextTokenSession::evaluate(int, const std::function<void(const model::SampleOutputs&)>&) {
  const TokenScores scores = evaluator_.score(data_.validation);
  held_out_ = scores.held_out_values();
  return scores.loss;
}

std::vector<std::string> NextTokenSession::kernels() const {
  std::vector<std::string> names;
  for (const model::BlockGraph& block : graph_.model.blocks) names.push_back(block.kernel);
  return names;
}

}  // namespace ufl::task
