// The cosine schedule and Adam of spec §2.
#include <doctest/doctest.h>

#include "train/adam.hpp"
#include "train/schedule.hpp"

using namespace ufl::train;

TEST_CASE("the cosine schedule starts at lr, passes the midpoint halfway and ends near lr_final") {
  CHECK(cosine_learning_rate(0, 100, 1e-2, 1e-4) == doctest::Approx(1e-2));
  CHECK(cosine_learning_rate(50, 100, 1e-2, 1e-4) == doctest::Approx((1e-2 + 1e-4) / 2));
  CHECK(cosine_learning_rate(100, 100, 1e-2, 1e-4) == doctest::Approx(1e-4));
  CHECK(cosine_learning_rate(99, 100, 1e-2, 1e-4) < 1.1e-4);
}

TEST_CASE("Adam's first step moves every parameter by lr against its gradient's sign") {
  Adam adam(3);
  float params[] = {1.0f, 1.0f, 1.0f};
  const float grads[] = {0.5f, -2.0f, 0.0f};
  adam.step(params, grads, 0.1);
  CHECK(params[0] == doctest::Approx(0.9));
  CHECK(params[1] == doctest::Approx(1.1));
  CHECK(params[2] == 1.0f);
}

TEST_CASE("Adam minimises a quadratic") {
  Adam adam(1);
  float x = 5.0f;
  for (int step = 0; step < 2000; ++step) {
    const float grad = 2 * (x - 3.0f);
    adam.step(&x, &grad, 0.05);
  }
  CHECK(x == doctest::Approx(3.0).epsilon(1e-3));
}
