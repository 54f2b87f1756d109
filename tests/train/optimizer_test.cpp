// AdamW, gradient clipping and the warm-up schedule (docs/transformer.md §3), against values
// computed by hand from torch.optim.AdamW's and clip_grad_norm_'s documented rules.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "train/adam.hpp"
#include "train/clip.hpp"
#include "train/schedule.hpp"

using namespace ufl::train;

TEST_CASE("AdamW's first step: decay on flagged elements only, then the Adam step") {
  Adam adam(2);
  adam.beta2 = 0.99;
  adam.weight_decay = 0.1;
  adam.decay = {1, 0};
  float params[] = {2.0f, 2.0f};
  const float grads[] = {0.5f, 0.5f};
  adam.step(params, grads, 0.01);
  // p·(1 − lr·wd) − lr·m̂/(√v̂ + ε), with m̂ = g and v̂ = g² on the first step.
  CHECK(params[0] == doctest::Approx(2.0 * (1 - 0.001) - 0.01 * 0.5 / (0.5 + 1e-8)));
  CHECK(params[1] == doctest::Approx(2.0 - 0.01 * 0.5 / (0.5 + 1e-8)));
}

TEST_CASE("without weight decay the update is plain Adam, whatever the flags") {
  Adam plain(1), flagged(1);
  flagged.decay = {1};
  float a[] = {1.0f}, b[] = {1.0f};
  const float g[] = {-0.3f};
  for (int k = 0; k < 3; ++k) {
    plain.step(a, g, 0.1);
    flagged.step(b, g, 0.1);
  }
  CHECK(a[0] == b[0]);
}

TEST_CASE("clipping scales a long gradient to the limit and leaves a short one") {
  const float long_grads[] = {3.0f, 4.0f};
  CHECK(gradient_norm(long_grads, 2) == doctest::Approx(5.0));
  CHECK(clip_factor(5.0, 1.0) == doctest::Approx(1.0 / (5.0 + 1e-6)));
  CHECK(clip_factor(0.5, 1.0) == 1.0f);
  CHECK(clip_factor(30.0, 0.0) == 1.0f);  // 0: no clipping
  // The norm of many elements, in chunks, is the plain one.
  std::vector<float> many(100000, 0.5f);
  CHECK(gradient_norm(many.data(), many.size()) == doctest::Approx(0.5 * std::sqrt(100000.0)));
}

TEST_CASE("Adam with a gradient scale steps as Adam on the scaled gradient") {
  Adam scaled(2), plain(2);
  float a[] = {1.0f, -2.0f}, b[] = {1.0f, -2.0f};
  const float g[] = {3.0f, 4.0f};
  const float factor = clip_factor(5.0, 1.0);
  const float clipped[] = {g[0] * factor, g[1] * factor};
  for (int k = 0; k < 3; ++k) {
    scaled.step(a, g, 0.1, factor);
    plain.step(b, clipped, 0.1);
  }
  CHECK(a[0] == b[0]);
  CHECK(a[1] == b[1]);
}

TEST_CASE("warm-up then cosine: lr·t/W up to W, lr at W + 1, lr_final at the last step") {
  CHECK(warmup_cosine_learning_rate(1, 2000, 100, 1e-3, 1e-4) == doctest::Approx(1e-5));
  CHECK(warmup_cosine_learning_rate(100, 2000, 100, 1e-3, 1e-4) == doctest::Approx(1e-3));
  CHECK(warmup_cosine_learning_rate(101, 2000, 100, 1e-3, 1e-4) == doctest::Approx(1e-3));
  CHECK(warmup_cosine_learning_rate(2000, 2000, 100, 1e-3, 1e-4) == doctest::Approx(1e-4));
  const double middle = warmup_cosine_learning_rate(1050, 2000, 100, 1e-3, 1e-4);
  CHECK(middle == doctest::Approx(5.5e-4).epsilon(1e-3));
  struct Settings {
    int steps = 10, warmup_steps = 0;
    double lr = 1.0, lr_final = 0.0;
  } settings;
  // Without warm-up: Section 8's cosine, step t at t − 1.
  CHECK(learning_rate_at(1, settings) == cosine_learning_rate(0, 10, 1.0, 0.0));
}
