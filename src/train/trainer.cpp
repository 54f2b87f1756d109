#include "train/trainer.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstring>

#include "interrupt/stop_request.hpp"
#include "io/log.hpp"
#include "model/evaluate.hpp"
#include "train/adam.hpp"
#include "train/clip.hpp"
#include "train/minibatch_sampler.hpp"
#include "train/resource_estimate.hpp"
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

// A loss that grows past this multiple of the run's first loss has blown up, even while it is
// finite (docs/running.md, "Divergence"): healthy runs end below their first loss, and the blow-ups
// seen (Section 7's L = 3 stacks, docs/section7.md) reach about 10¹³ times it.
constexpr double kExplosionFactor = 1e6;

std::string loss_text(double loss) {
  if (std::isnan(loss)) return std::signbit(loss) ? "−nan" : "nan";
  if (std::isinf(loss)) return loss > 0 ? "inf" : "−inf";
  return fmt::format("{:.3g}", loss);
}

double latest_test_metric(const std::vector<LossPoint>& curve) {
  for (auto it = curve.rbegin(); it != curve.rend(); ++it)
    if (!std::isnan(it->test_metric)) return it->test_metric;
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

Adam optimizer_for(const TrainConfig& settings, const model::Parameters<float>& params) {
  Adam adam(params.values.size());
  adam.beta2 = settings.beta2;
  adam.weight_decay = settings.weight_decay;
  if (settings.weight_decay > 0) {
    // Matrices only: not norms, biases, Σ (s) or gates (g), which are one row.
    adam.decay.assign(params.values.size(), 0);
    for (const model::ParameterSlice& slice : params.slices)
      if (slice.rows > 1 && slice.cols > 1)
        std::fill_n(adam.decay.begin() + slice.offset, slice.size(), 1);
  }
  return adam;
}

TrainResult train_session(const TrainConfig& settings, std::uint64_t seed, Session& session,
                          model::Model<float>& model, const TrainOptions& options) {
  const int batch = settings.batch_size;
  model::Parameters<float>& params = model.params;
  Tape<float>& tape = session.tape();
  TrainResult result;
  result.kernels = session.kernels();
  Adam adam = optimizer_for(settings, params);
  MinibatchSampler sampler(session.train_count(), seed);
  auto stopping = [&options] {
    return options.stop_requested != nullptr && options.stop_requested->load();
  };

  double seconds_before = 0, probe_seconds_before = 0;
  if (const TrainingState* resume = options.resume_from) {
    if (resume->params.size() != params.values.size() ||
        resume->sampler_order.size() != std::size_t(session.train_count()))
      throw std::invalid_argument(
          "the checkpoint does not match this config (parameter or dataset sizes differ)");
    params.values = resume->params;
    adam.first_moment = resume->first_moment;
    adam.second_moment = resume->second_moment;
    adam.step_count = resume->adam_steps;
    sampler.restore(resume->sampler_rng, resume->sampler_order, resume->sampler_position);
    result.curve = resume->curve;
    result.steps_done = resume->steps_done;
    result.probe_rows = resume->probe_rows;
    seconds_before = resume->train_seconds;
    probe_seconds_before = resume->probe_seconds;
  }
  result.curve.reserve(settings.steps);

  const auto start = Clock::now();
  double probe_seconds_now = 0;
  // The state at the current step boundary (the parameters, Adam and the sampler are only
  // changed once a step is certain to complete).
  auto capture_state = [&] {
    TrainingState state;
    state.steps_done = result.steps_done;
    state.params = params.values;
    state.first_moment = adam.first_moment;
    state.second_moment = adam.second_moment;
    state.adam_steps = adam.step_count;
    state.sampler_rng = sampler.rng_state();
    state.sampler_order = sampler.order();
    state.sampler_position = sampler.position();
    state.curve = result.curve;
    state.train_seconds =
        seconds_before + std::chrono::duration<double>(Clock::now() - start).count();
    state.probe_rows = result.probe_rows;
    state.probe_seconds = probe_seconds_before + probe_seconds_now;
    return state;
  };
  // The test MSE of `point` (and the probe's row). False when a stop request cut it short: the
  // point keeps no test MSE, and a resume evaluates it again (the parameters are the same).
  auto evaluate = [&](LossPoint& point) {
    train::EvaluationProbe* probe = options.probe;
    double observe_seconds = 0;
    std::function<void(const model::SampleOutputs&)> observe;
    if (probe != nullptr) {
      probe->begin();
      observe = [&](const model::SampleOutputs& outputs) {
        const auto before = Clock::now();
        probe->observe(outputs);
        observe_seconds += std::chrono::duration<double>(Clock::now() - before).count();
      };
    }
    const double metric = session.evaluate(probe != nullptr ? probe->sample_count() : 0, observe);
    if (stopping() || interrupt::stop_requested()) return false;
    if (probe != nullptr) {
      const auto before = Clock::now();
      std::vector<double> values = probe->finish(model);
      probe_seconds_now +=
          observe_seconds + std::chrono::duration<double>(Clock::now() - before).count();
      if (stopping() || interrupt::stop_requested()) return false;
      result.probe_rows.push_back(ProbeRow{point.step, std::move(values)});
    }
    point.test_metric = metric;
    point.held_out = session.held_out_values();
    return true;
  };
  auto due_for_evaluation = [&](int step) {
    return step % settings.eval_every == 0 || step == settings.steps;
  };

  // A checkpoint taken while an evaluation was under way: evaluate that step first.
  if (!result.curve.empty() && due_for_evaluation(result.curve.back().step) &&
      std::isnan(result.curve.back().test_metric) && !evaluate(result.curve.back()))
    result.status = TrainStatus::kInterrupted;

  auto last_report = start, last_checkpoint = start;
  bool measured_reported = false;
  const int first_step = result.steps_done + 1;
  // The parameters before the last update: a diverged run keeps those that gave its last finite
  // loss (docs/running.md).
  std::vector<float> before_update;
  for (int step = first_step; step <= settings.steps && result.status != TrainStatus::kInterrupted;
       ++step) {
    if (stopping()) {
      result.status = TrainStatus::kInterrupted;
      break;
    }
    MinibatchSampler::Bookmark before_batch = sampler.bookmark(batch);
    for (int s = 0; s < batch; ++s) session.load_sample(s, sampler.next());
    // A stop request abandons the step: its forward or backward pass is incomplete, and the
    // parameters, Adam and the sampler go back to the last step boundary.
    auto abandon_step = [&] {
      sampler.rewind(std::move(before_batch));
      result.status = TrainStatus::kInterrupted;
    };
    tape.forward();
    if (stopping() || interrupt::stop_requested()) {
      abandon_step();
      break;
    }
    LossPoint point{step, learning_rate_at(step, settings), tape.value(session.loss()).data[0],
                    session.task_loss(), session.penalty()};
    const double first_loss = result.curve.empty() ? point.loss : result.curve.front().loss;
    if (!std::isfinite(point.loss) || point.loss > kExplosionFactor * std::abs(first_loss)) {
      result.status = TrainStatus::kDiverged;
      if (step == 1)  // no update has happened: the learning rate plays no part
        result.message = "training diverged at step 1: the loss is " + loss_text(point.loss) +
                         " on the first batch, before any update, so train.lr is not the cause: "
                         "the model's output at initialisation is not finite";
      else if (!std::isfinite(point.loss))
        result.message = "training diverged at step " + std::to_string(step) +
                         ": the loss became " + loss_text(point.loss) + "; lower train.lr";
      else
        result.message = "training diverged at step " + std::to_string(step) + ": the loss " +
                         loss_text(point.loss) + " exceeds 10⁶ × the first step's " +
                         loss_text(first_loss) +
                         " (a blow-up that stays finite; docs/running.md); lower train.lr";
      // Back to the parameters that gave the previous step's (finite) loss.
      if (!before_update.empty()) params.values.assign(before_update.begin(), before_update.end());
      result.curve.push_back(point);
      break;
    }
    tape.backward(session.loss());
    if (stopping() || interrupt::stop_requested()) {
      abandon_step();
      break;
    }
    const float clip =
        settings.clip > 0
            ? clip_factor(gradient_norm(params.grads.data(), params.grads.size()), settings.clip)
            : 1.0f;
    before_update.assign(params.values.begin(), params.values.end());
    adam.step(params.values.data(), params.grads.data(), point.learning_rate, clip);
    if (const std::string tensor = non_finite_parameter(params); !tensor.empty()) {
      params.values.assign(before_update.begin(), before_update.end());
      result.status = TrainStatus::kDiverged;
      result.message = "training diverged at step " + std::to_string(step) + ": parameter " +
                       tensor + " holds NaN or Inf after the update; lower train.lr";
      result.curve.push_back(point);
      break;
    }
    const bool last = step == settings.steps;
    const bool evaluated = !due_for_evaluation(step) || evaluate(point);
    result.curve.push_back(point);
    result.steps_done = step;
    if (!evaluated) {
      result.status = TrainStatus::kInterrupted;
      break;
    }
    if (options.after_step) options.after_step(step);

    const auto now = Clock::now();
    const double elapsed = std::chrono::duration<double>(now - start).count();
    const int steps_now = step - first_step + 1;
    const double rate = steps_now / std::max(elapsed, 1e-9);
    if (!options.quiet && !measured_reported && !last && (steps_now >= 3 || elapsed >= 10)) {
      measured_reported = true;
      spdlog::info("measured {} per step over the first {} step{}: about {} left for {} steps",
                   format_seconds(elapsed / steps_now), steps_now, steps_now == 1 ? "" : "s",
                   format_seconds((settings.steps - step) / rate), settings.steps - step);
    }
    if (!options.quiet &&
        (last || std::chrono::duration<double>(now - last_report).count() >= 1.0)) {
      last_report = now;
      const double test_metric = latest_test_metric(result.curve);
      // No held-out value before the first evaluation.
      const std::string test_text =
          std::isnan(test_metric) ? std::string()
                                  : fmt::format("  {} {:.5f}", options.metric_name, test_metric);
      spdlog::info("step {:>6}/{}  loss {:.5f}{}  lr {:.2e}  {:.0f} steps/s  left {}", step,
                   settings.steps, point.loss, test_text, point.learning_rate, rate,
                   format_seconds((settings.steps - step) / rate));
    }
    if (options.on_checkpoint && !last &&
        (settings.checkpoint_every > 0
             ? step % settings.checkpoint_every == 0
             : std::chrono::duration<double>(now - last_checkpoint).count() >=
                   options.checkpoint_seconds)) {
      options.on_checkpoint(capture_state());
      last_checkpoint = Clock::now();
    }
  }
  const double seconds_now = std::chrono::duration<double>(Clock::now() - start).count();
  result.seconds = seconds_before + seconds_now;
  result.probe_seconds = probe_seconds_before + probe_seconds_now;
  result.steps_per_second =
      std::max(result.steps_done - first_step + 1, 0) / std::max(seconds_now, 1e-9);
  if (result.status == TrainStatus::kComplete) {
    // The last step evaluated the test set (or the resume's pending evaluation did).
    result.final_test_metric = latest_test_metric(result.curve);
  }
  if (result.status != TrainStatus::kDiverged) result.state = capture_state();
  return result;
}

}  // namespace ufl::train
