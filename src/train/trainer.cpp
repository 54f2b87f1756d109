#include "train/trainer.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <numeric>

#include "data/rng.hpp"
#include "model/layer.hpp"
#include "train/adam.hpp"
#include "model/evaluate.hpp"
#include "train/schedule.hpp"

namespace ufl::train {
namespace {

using Clock = std::chrono::steady_clock;

// Minibatches: the training set is reshuffled every epoch, and batches are read off the shuffled
// order (crossing into the next epoch when needed), so every batch is a uniform draw and every
// sample is seen equally often.
class MinibatchSampler {
 public:
  MinibatchSampler(int train_size, std::uint64_t seed)
      : rng_(seed, data::Stream::kMinibatches), order_(train_size) {
    reshuffle();
  }
  int next() {
    if (position_ == order_.size()) reshuffle();
    return order_[position_++];
  }

 private:
  void reshuffle() {
    std::iota(order_.begin(), order_.end(), 0);
    rng_.shuffle(order_.begin(), order_.end());
    position_ = 0;
  }
  data::Rng rng_;
  std::vector<int> order_;
  std::size_t position_ = 0;
};

void check_finite_parameters(const model::Parameters<float>& params, int step) {
  for (const model::ParameterSlice& slice : params.slices)
    for (std::size_t e = 0; e < slice.size(); ++e)
      if (!std::isfinite(params.values[slice.offset + e])) {
        DivergenceError error("training diverged at step " + std::to_string(step) + ": parameter " +
                              slice.name + " became " +
                              std::to_string(params.values[slice.offset + e]) +
                              "; lower train.lr");
        error.step = step;
        throw error;
      }
}

std::string format_duration(double seconds) {
  char text[32];
  if (seconds < 60) std::snprintf(text, sizeof text, "%.1fs", seconds);
  else std::snprintf(text, sizeof text, "%dm%02ds", int(seconds) / 60, int(seconds) % 60);
  return text;
}

}  // namespace

TrainResult train_layer(const config::Config& config, const data::Dataset& dataset,
                        model::Parameters<float>& params, const TrainOptions& options) {
  const config::TrainConfig& settings = config.train;
  const int batch = settings.batch_size;
  Tape<float> tape;
  const auto graph = model::record_layer(tape, params, batch, settings.ortho_weight, true);
  model::plan_layer(tape, graph);
  model::Evaluator evaluator(params, dataset.test.count);
  Adam adam(params.values.size());
  MinibatchSampler sampler(dataset.train.count, config.seed);

  const data::SampleSet& train_set = dataset.train;
  const std::size_t sample_bytes = static_cast<std::size_t>(train_set.n) * train_set.d * sizeof(float);
  float* inputs = tape.value(graph.x).data;
  float* targets = tape.value(graph.target).data;

  TrainResult result;
  result.curve.reserve(settings.steps);
  const auto start = Clock::now();
  auto last_report = start;
  for (int step = 1; step <= settings.steps; ++step) {
    if (options.stop_requested != nullptr && options.stop_requested->load()) {
      result.interrupted = true;
      break;
    }
    for (int s = 0; s < batch; ++s) {
      const int index = sampler.next();
      std::memcpy(reinterpret_cast<char*>(inputs) + s * sample_bytes, train_set.input(index), sample_bytes);
      std::memcpy(reinterpret_cast<char*>(targets) + s * sample_bytes, train_set.target(index), sample_bytes);
    }
    tape.forward();
    LossPoint point{step, cosine_learning_rate(step - 1, settings.steps, settings.lr, settings.lr_final),
                    tape.value(graph.loss).data[0], tape.value(graph.mse).data[0],
                    tape.value(graph.orthogonality).data[0]};
    if (!std::isfinite(point.loss)) {
      DivergenceError error("training diverged at step " + std::to_string(step) + ": the loss became " +
                            std::to_string(point.loss) + "; lower train.lr");
      error.step = step;
      throw error;
    }
    tape.backward(graph.loss);
    adam.step(params.values.data(), params.grads.data(), point.learning_rate);
    check_finite_parameters(params, step);

    const bool last = step == settings.steps;
    if (step % settings.eval_every == 0 || last) point.test_mse = evaluator.mse(dataset.test);
    result.curve.push_back(point);
    result.steps_done = step;

    const auto now = Clock::now();
    const double elapsed = std::chrono::duration<double>(now - start).count();
    if (!options.quiet && (last || std::chrono::duration<double>(now - last_report).count() >= 1.0)) {
      last_report = now;
      const double rate = step / elapsed;
      double recent_test = std::numeric_limits<double>::quiet_NaN();
      for (auto it = result.curve.rbegin(); it != result.curve.rend(); ++it)
        if (!std::isnan(it->test_mse)) {
          recent_test = it->test_mse;
          break;
        }
      spdlog::info("step {:>6}/{}  loss {:.5f}  test_mse {:.5f}  lr {:.2e}  {:.0f} steps/s  left {}", step,
                   settings.steps, point.loss, recent_test, point.learning_rate, rate,
                   format_duration((settings.steps - step) / rate));
    }
  }
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  result.steps_per_second = result.steps_done / std::max(result.seconds, 1e-9);
  result.final_test_mse = evaluator.mse(dataset.test);
  return result;
}

}  // namespace ufl::train
