#include "train/trainer.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cmath>
#include <cstring>

#include "model/evaluate.hpp"
#include "model/loss.hpp"
#include "train/adam.hpp"
#include "train/minibatch_sampler.hpp"
#include "train/schedule.hpp"

namespace ufl::train {
namespace {

using Clock = std::chrono::steady_clock;

// The name of the first parameter tensor holding a NaN or Inf, or "" if all are finite.
std::string non_finite_parameter(const model::Parameters<float>& params) {
  for (const model::ParameterSlice& slice : params.slices)
    for (std::size_t e = 0; e < slice.size(); ++e)
      if (!std::isfinite(params.values[slice.offset + e])) return slice.name;
  return "";
}

std::string format_duration(double seconds) {
  char text[32];
  if (seconds < 60)
    std::snprintf(text, sizeof text, "%.1fs", seconds);
  else
    std::snprintf(text, sizeof text, "%dm%02ds", int(seconds) / 60, int(seconds) % 60);
  return text;
}

double latest_test_mse(const std::vector<LossPoint>& curve) {
  for (auto it = curve.rbegin(); it != curve.rend(); ++it)
    if (!std::isnan(it->test_mse)) return it->test_mse;
  return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace

const char* status_name(TrainStatus status) {
  switch (status) {
    case TrainStatus::kComplete:
      return "complete";
    case TrainStatus::kInterrupted:
      return "interrupted";
    case TrainStatus::kDiverged:
      return "diverged";
  }
  return "unknown";
}

TrainResult train_model(const TrainConfig& settings, std::uint64_t seed,
                        const data::Dataset& dataset, model::Model<float>& model,
                        const TrainOptions& options) {
  const int batch = settings.batch_size;
  model::Parameters<float>& params = model.params;
  Tape<float> tape;
  const auto graph = model::record_model(tape, model, batch, true);
  const auto loss = model::record_loss(tape, graph, settings.ortho_weight);
  tape.plan();
  model::Evaluator evaluator(model, dataset.test.count);
  TrainResult result;
  for (const auto& layer : graph.layers) result.kernels.push_back(layer.branch.kernel);
  Adam adam(params.values.size());
  MinibatchSampler sampler(dataset.train.count, seed);

  double seconds_before = 0;
  if (const TrainingState* resume = options.resume_from) {
    if (resume->params.size() != params.values.size() ||
        resume->sampler_order.size() != std::size_t(dataset.train.count))
      throw std::invalid_argument(
          "the checkpoint does not match this config (parameter or dataset sizes differ)");
    params.values = resume->params;
    adam.first_moment = resume->first_moment;
    adam.second_moment = resume->second_moment;
    adam.step_count = resume->adam_steps;
    sampler.restore(resume->sampler_rng, resume->sampler_order, resume->sampler_position);
    result.curve = resume->curve;
    result.steps_done = resume->steps_done;
    seconds_before = resume->train_seconds;
  }
  result.curve.reserve(settings.steps);

  const data::SampleSet& train_set = dataset.train;
  const std::size_t sample_bytes =
      static_cast<std::size_t>(train_set.n) * train_set.d * sizeof(float);
  char* inputs = reinterpret_cast<char*>(tape.value(graph.x).data);
  char* targets = reinterpret_cast<char*>(tape.value(loss.target).data);

  const auto start = Clock::now();
  auto last_report = start;
  const int first_step = result.steps_done + 1;
  for (int step = first_step; step <= settings.steps; ++step) {
    if (options.stop_requested != nullptr && options.stop_requested->load()) {
      result.status = TrainStatus::kInterrupted;
      break;
    }
    for (int s = 0; s < batch; ++s) {
      const int index = sampler.next();
      std::memcpy(inputs + s * sample_bytes, train_set.input(index), sample_bytes);
      std::memcpy(targets + s * sample_bytes, train_set.target(index), sample_bytes);
    }
    tape.forward();
    LossPoint point{step,
                    cosine_learning_rate(step - 1, settings.steps, settings.lr, settings.lr_final),
                    tape.value(loss.loss).data[0], tape.value(loss.mse).data[0],
                    tape.value(loss.orthogonality).data[0]};
    if (!std::isfinite(point.loss)) {
      result.status = TrainStatus::kDiverged;
      result.message = "training diverged at step " + std::to_string(step) + ": the loss became " +
                       std::to_string(point.loss) + "; lower train.lr";
      result.curve.push_back(point);
      break;
    }
    tape.backward(loss.loss);
    adam.step(params.values.data(), params.grads.data(), point.learning_rate);
    if (const std::string tensor = non_finite_parameter(params); !tensor.empty()) {
      result.status = TrainStatus::kDiverged;
      result.message = "training diverged at step " + std::to_string(step) + ": parameter " +
                       tensor + " holds NaN or Inf after the update; lower train.lr";
      result.curve.push_back(point);
      break;
    }
    const bool last = step == settings.steps;
    if (step % settings.eval_every == 0 || last) point.test_mse = evaluator.mse(dataset.test);
    result.curve.push_back(point);
    result.steps_done = step;
    if (options.after_step) options.after_step(step);

    const auto now = Clock::now();
    if (!options.quiet &&
        (last || std::chrono::duration<double>(now - last_report).count() >= 1.0)) {
      last_report = now;
      const double rate =
          (step - first_step + 1) / std::chrono::duration<double>(now - start).count();
      spdlog::info(
          "step {:>6}/{}  loss {:.5f}  test_mse {:.5f}  lr {:.2e}  {:.0f} steps/s  left {}", step,
          settings.steps, point.loss, latest_test_mse(result.curve), point.learning_rate, rate,
          format_duration((settings.steps - step) / rate));
    }
  }
  const double seconds_now = std::chrono::duration<double>(Clock::now() - start).count();
  result.seconds = seconds_before + seconds_now;
  result.steps_per_second = (result.steps_done - first_step + 1) / std::max(seconds_now, 1e-9);
  if (result.status != TrainStatus::kDiverged) {
    // The last step already evaluated the test set unless training stopped early.
    const bool evaluated = !result.curve.empty() && result.curve.back().step == result.steps_done &&
                           !std::isnan(result.curve.back().test_mse);
    result.final_test_mse = evaluated ? result.curve.back().test_mse : evaluator.mse(dataset.test);
  }
  if (result.status == TrainStatus::kInterrupted) {
    TrainingState& state = result.state;
    state.steps_done = result.steps_done;
    state.params = params.values;
    state.first_moment = adam.first_moment;
    state.second_moment = adam.second_moment;
    state.adam_steps = adam.step_count;
    state.sampler_rng = sampler.rng_state();
    state.sampler_order = sampler.order();
    state.sampler_position = sampler.position();
    state.curve = result.curve;
    state.train_seconds = result.seconds;
  }
  return result;
}

}  // namespace ufl::train
