#include "task/next_token_session.hpp"

#include <omp.h>

#include <algorithm>

#include "io/stop_request.hpp"
#include "tape/ops.hpp"

namespace ufl::task {

TokenGraph record_token_graph(Tape<float>& tape, model::Model<float>& model, int batch,
                              bool with_grads, model::LayerKernels kernels) {
  TokenGraph graph;
  graph.model = model::record_model(tape, model, batch, with_grads, kernels);
  graph.targets = tape.input(Shape{batch, model.n, 1}, "next_tokens");
  graph.weights = tape.input(Shape{batch, model.n, 1}, "weights");
  const CrossEntropyGraph entropy =
      record_token_loss(tape, graph.model, graph.targets, graph.weights);
  graph.loss = entropy.loss;
  graph.correct = entropy.correct;
  return graph;
}

void load_window(Tape<float>& tape, const TokenGraph& graph, const data::TokenSplit& split, int s,
                 int slot) {
  const int n = split.n;
  const std::int32_t* window = split.window(s);
  const float* weights = split.weights_of(s);
  float* inputs = tape.value(graph.model.x).data + std::size_t(slot) * n;
  float* targets = tape.value(graph.targets).data + std::size_t(slot) * n;
  float* weight = tape.value(graph.weights).data + std::size_t(slot) * n;
  for (int i = 0; i < n; ++i) {
    inputs[i] = float(window[i]);
    targets[i] = float(window[i + 1]);
    weight[i] = weights != nullptr ? weights[i] : 1.0f;
  }
}

TokenEvaluator::TokenEvaluator(model::Model<float>& model, int max_windows,
                               model::LayerKernels kernels)
    : chunk_(evaluation_chunk(max_windows, omp_get_max_threads())) {
  graph_ = record_token_graph(tape_, model, chunk_, false, kernels);
  tape_.plan();
}

TokenScores TokenEvaluator::score(
    const data::TokenSplit& split, int windows,
    const std::function<void(const TokenGraph&, const Tape<float>&, int, int)>& visit,
    const Tape<float>::ForwardEdit& edit) {
  const int total = windows < 0 ? split.count() : std::min(windows, split.count());
  std::vector<double> loss(total, 0.0), correct(total, 0.0);
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
  return scores;
}

NextTokenSession::NextTokenSession(const data::TokenDataset& data, model::Model<float>& model,
                                   int batch, model::LayerKernels kernels)
    : data_(data), evaluator_(model, data.validation.count(), kernels) {
  graph_ = record_token_graph(tape_, model, batch, true, kernels);
  loss_ = column_mean(tape_, graph_.loss, 0, "cross_entropy");
  tape_.plan();
}

void NextTokenSession::load_sample(int slot, int index) {
  load_window(tape_, graph_, data_.train, index, slot);
}

double NextTokenSession::evaluate(int, const std::function<void(const model::SampleOutputs&)>&) {
  return evaluator_.score(data_.validation).loss;
}

std::vector<std::string> NextTokenSession::kernels() const {
  std::vector<std::string> names;
  for (const model::BlockGraph& block : graph_.model.blocks) names.push_back(block.kernel);
  return names;
}

}  // namespace ufl::task
