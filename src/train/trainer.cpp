#include "train/trainer.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstring>

#include "io/log.hpp"
#include "io/stop_request.hpp"
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

namespace {

// One call of train_session: what it keeps from step to step, and its steps by name. The numbers
// are the session's and Adam's (tape forward and backward, the update); this only orders them.
class TrainingLoop {
 public:
  TrainingLoop(const TrainConfig& settings, std::uint64_t seed, Session& session,
               model::Model<float>& model, const TrainOptions& options)
      : settings_(settings),
        session_(session),
        model_(model),
        params_(model.params),
        options_(options),
        adam_(optimizer_for(settings, model.params)),
        sampler_(session.train_count(), seed) {
    result_.kernels = session.kernels();
    if (options.resume_from != nullptr) resume(*options.resume_from);
    result_.curve.reserve(settings.steps);
  }

  TrainResult run() {
    start_ = last_report_ = last_checkpoint_ = Clock::now();
    // A checkpoint taken while an evaluation was under way: evaluate that step first.
    if (!result_.curve.empty() && due_for_evaluation(result_.curve.back().step) &&
        std::isnan(result_.curve.back().test_metric) && !evaluate(result_.curve.back()))
      result_.status = TrainStatus::kInterrupted;
    first_step_ = result_.steps_done + 1;
    for (int step = first_step_;
         step <= settings_.steps && result_.status != TrainStatus::kInterrupted; ++step)
      if (!take_step(step)) break;
    return finish();
  }

 private:
  bool stopping() const {
    return options_.stop_requested != nullptr && options_.stop_requested->load();
  }
  bool due_for_evaluation(int step) const {
    return step % settings_.eval_every == 0 || step == settings_.steps;
  }

  // Continues from a checkpoint: the parameters, Adam, the sampler, the curve and the clock.
  void resume(const TrainingState& state) {
    if (state.params.size() != params_.values.size() ||
        state.sampler_order.size() != std::size_t(session_.train_count()))
      throw std::invalid_argument(
          "the checkpoint does not match this config (parameter or dataset sizes differ)");
    params_.values = state.params;
    adam_.first_moment = state.first_moment;
    adam_.second_moment = state.second_moment;
    adam_.step_count = state.adam_steps;
    sampler_.restore(state.sampler_rng, state.sampler_order, state.sampler_position);
    result_.curve = state.curve;
    result_.steps_done = state.steps_done;
    result_.probe_rows = state.probe_rows;
    seconds_before_ = state.train_seconds;
    probe_seconds_before_ = state.probe_seconds;
  }

  // The state at the current step boundary (the parameters, Adam and the sampler are only
  // changed once a step is certain to complete).
  TrainingState capture_state() const {
    TrainingState state;
    state.steps_done = result_.steps_done;
    state.params = params_.values;
    state.first_moment = adam_.first_moment;
    state.second_moment = adam_.second_moment;
    state.adam_steps = adam_.step_count;
    state.sampler_rng = sampler_.rng_state();
    state.sampler_order = sampler_.order();
    state.sampler_position = sampler_.position();
    state.curve = result_.curve;
    state.train_seconds =
        seconds_before_ + std::chrono::duration<double>(Clock::now() - start_).count();
    state.probe_rows = result_.probe_rows;
    state.probe_seconds = probe_seconds_before_ + probe_seconds_now_;
    return state;
  }

  // The test MSE of `point` (and the probe's row). False when a stop request cut it short: the
  // point keeps no test MSE, and a resume evaluates it again (the parameters are the same).
  bool evaluate(LossPoint& point) {
    train::EvaluationProbe* probe = options_.probe;
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
    const double metric = session_.evaluate(probe != nullptr ? probe->sample_count() : 0, observe);
    if (stopping() || interrupt::stop_requested()) return false;
    if (probe != nullptr) {
      const auto before = Clock::now();
      std::vector<double> values = probe->finish(model_);
      probe_seconds_now_ +=
          observe_seconds + std::chrono::duration<double>(Clock::now() - before).count();
      if (stopping() || interrupt::stop_requested()) return false;
      result_.probe_rows.push_back(ProbeRow{point.step, std::move(values)});
    }
    point.test_metric = metric;
    point.held_out = session_.held_out_values();
    return true;
  }

  // Step `step`: a minibatch forward, the divergence check, backward, the update, the evaluation
  // when due, then progress and checkpoints. False ends the loop (result_.status says why).
  bool take_step(int step) {
    if (stopping()) {
      result_.status = TrainStatus::kInterrupted;
      return false;
    }
    Tape<float>& tape = session_.tape();
    MinibatchSampler::Bookmark before_batch = sampler_.bookmark(settings_.batch_size);
    for (int s = 0; s < settings_.batch_size; ++s) session_.load_sample(s, sampler_.next());
    // A stop request abandons the step: its forward or backward pass is incomplete, and the
    // parameters, Adam and the sampler go back to the last step boundary.
    auto abandon_step = [&] {
      sampler_.rewind(std::move(before_batch));
      result_.status = TrainStatus::kInterrupted;
      return false;
    };
    tape.forward();
    if (stopping() || interrupt::stop_requested()) return abandon_step();
    LossPoint point{step, learning_rate_at(step, settings_), tape.value(session_.loss()).data[0],
                    session_.task_loss(), session_.penalty()};
    if (diverged_loss(point)) return false;
    tape.backward(session_.loss());
    if (stopping() || interrupt::stop_requested()) return abandon_step();
    if (!update(point)) return false;
    const bool evaluated = !due_for_evaluation(step) || evaluate(point);
    result_.curve.push_back(point);
    result_.steps_done = step;
    if (!evaluated) {
      result_.status = TrainStatus::kInterrupted;
      return false;
    }
    if (options_.after_step) options_.after_step(step);
    report_and_checkpoint(step, point);
    return true;
  }

  // A loss that is not finite, or has blown up past kExplosionFactor × the first: the run stops
  // as diverged with the parameters that gave the previous step's (finite) loss.
  bool diverged_loss(const LossPoint& point) {
    const double first_loss = result_.curve.empty() ? point.loss : result_.curve.front().loss;
    if (std::isfinite(point.loss) && point.loss <= kExplosionFactor * std::abs(first_loss))
      return false;
    const int step = point.step;
    result_.status = TrainStatus::kDiverged;
    if (step == 1)  // no update has happened: the learning rate plays no part
      result_.message = "training diverged at step 1: the loss is " + loss_text(point.loss) +
                        " on the first batch, before any update, so train.lr is not the cause: "
                        "the model's output at initialisation is not finite";
    else if (!std::isfinite(point.loss))
      result_.message = "training diverged at step " + std::to_string(step) + ": the loss became " +
                        loss_text(point.loss) + "; lower train.lr";
    else
      result_.message = "training diverged at step " + std::to_string(step) + ": the loss " +
                        loss_text(point.loss) + " exceeds 10⁶ × the first step's " +
                        loss_text(first_loss) +
                        " (a blow-up that stays finite; docs/running.md); lower train.lr";
    if (!before_update_.empty())
      params_.values.assign(before_update_.begin(), before_update_.end());
    result_.curve.push_back(point);
    return true;
  }

  // Adam's update with the clipped gradients; false (diverged, parameters restored) when it
  // leaves a NaN or Inf.
  bool update(const LossPoint& point) {
    const float clip =
        settings_.clip > 0
            ? clip_factor(gradient_norm(params_.grads.data(), params_.grads.size()), settings_.clip)
            : 1.0f;
    before_update_.assign(params_.values.begin(), params_.values.end());
    adam_.step(params_.values.data(), params_.grads.data(), point.learning_rate, clip);
    const std::string tensor = non_finite_parameter(params_);
    if (tensor.empty()) return true;
    params_.values.assign(before_update_.begin(), before_update_.end());
    result_.status = TrainStatus::kDiverged;
    result_.message = "training diverged at step " + std::to_string(point.step) + ": parameter " +
                      tensor + " holds NaN or Inf after the update; lower train.lr";
    result_.curve.push_back(point);
    return false;
  }

  // The progress lines (the measured time per step once, then about every second) and a
  // checkpoint when one is due.
  // When the first steps take kSlowerThanEstimate times the cost model's time, one line says so
  // with the rate the model assumed (docs/running.md, "The estimate").
  void warn_if_slower_than_estimate(double seconds_per_step) const {
    const double estimated = options_.estimated_seconds_per_step;
    if (estimated <= 0 || seconds_per_step < kSlowerThanEstimate * estimated) return;
    spdlog::warn(
        "the steps run {:.0f}x slower than the cost model's {} (which assumed {:.0f} GFLOP/s per "
        "thread): the cores are busy with other work, or ufl was built for another CPU "
        "(docs/building.md, \"Instruction sets\")",
        seconds_per_step / estimated, format_seconds(estimated),
        options_.estimated_gflops_per_thread);
  }

  void report_and_checkpoint(int step, const LossPoint& point) {
    const bool last = step == settings_.steps;
    const auto now = Clock::now();
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const int steps_now = step - first_step_ + 1;
    const double rate = steps_now / std::max(elapsed, 1e-9);
    if (!options_.quiet && !measured_reported_ && !last && (steps_now >= 3 || elapsed >= 10)) {
      measured_reported_ = true;
      spdlog::info("measured {} per step over the first {} step{}: about {} left for {} steps",
                   format_seconds(elapsed / steps_now), steps_now, steps_now == 1 ? "" : "s",
                   format_seconds((settings_.steps - step) / rate), settings_.steps - step);
      warn_if_slower_than_estimate(elapsed / steps_now);
    }
    if (!options_.quiet &&
        (last || std::chrono::duration<double>(now - last_report_).count() >= 1.0)) {
      last_report_ = now;
      const double test_metric = latest_test_metric(result_.curve);
      // No held-out value before the first evaluation.
      const std::string test_text =
          std::isnan(test_metric) ? std::string()
                                  : fmt::format("  {} {:.5f}", options_.metric_name, test_metric);
      spdlog::info("step {:>6}/{}  loss {:.5f}{}  lr {:.2e}  {:.0f} steps/s  left {}", step,
                   settings_.steps, point.loss, test_text, point.learning_rate, rate,
                   format_seconds((settings_.steps - step) / rate));
    }
    if (options_.on_checkpoint && !last &&
        (settings_.checkpoint_every > 0
             ? step % settings_.checkpoint_every == 0
             : std::chrono::duration<double>(now - last_checkpoint_).count() >=
                   options_.checkpoint_seconds)) {
      options_.on_checkpoint(capture_state());
      last_checkpoint_ = Clock::now();
    }
  }

  // The times, the final metric and the state to keep.
  TrainResult finish() {
    const double seconds_now = std::chrono::duration<double>(Clock::now() - start_).count();
    result_.seconds = seconds_before_ + seconds_now;
    result_.probe_seconds = probe_seconds_before_ + probe_seconds_now_;
    result_.steps_per_second =
        std::max(result_.steps_done - first_step_ + 1, 0) / std::max(seconds_now, 1e-9);
    if (result_.status == TrainStatus::kComplete) {
      // The last step evaluated the test set (or the resume's pending evaluation did).
      result_.final_test_metric = latest_test_metric(result_.curve);
    }
    if (result_.status != TrainStatus::kDiverged) result_.state = capture_state();
    return std::move(result_);
  }

  const TrainConfig& settings_;
  Session& session_;
  model::Model<float>& model_;
  model::Parameters<float>& params_;
  const TrainOptions& options_;
  Adam adam_;
  MinibatchSampler sampler_;
  TrainResult result_;
  double seconds_before_ = 0, probe_seconds_before_ = 0, probe_seconds_now_ = 0;
  Clock::time_point start_, last_report_, last_checkpoint_;
  bool measured_reported_ = false;
  int first_step_ = 1;
  // The parameters before the last update: a diverged run keeps those that gave its last finite
  // loss (docs/running.md).
  std::vector<float> before_update_;
};

}  // namespace

TrainResult train_session(const TrainConfig& settings, std::uint64_t seed, Session& session,
                          model::Model<float>& model, const TrainOptions& options) {
  return TrainingLoop(settings, seed, session, model, options).run();
}

}  // namespace ufl::train
