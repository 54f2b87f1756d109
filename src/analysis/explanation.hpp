#pragma once
// One line that says how well a run's mixer did and why (docs/universality.md §3-4): its η, the
// optimum's closest special case, what the mixer's operators can be and how far the best of them
// gets on this data, or (attention) which part of the optimum softmax rows cannot hold.
#include <nlohmann/json.hpp>
#include <string>

namespace ufl::analysis {

// From a run's metrics (mixer, dataset, eta, iota, mixer_reach, optimal.closest_special_case,
// optimal.negative_energy_share), e.g.
//   "convolution reached η 0.612 on periodic; the optimum's closest special case is fourier
//    (17 parameters). A convolution layer is one band of 5 taps, the same on every row; the best
//    such operator reaches η 0.615 here: it cannot express the optimum."
std::string explain_run(const nlohmann::json& metrics);

// "fourier (17 parameters)", "convolution with 7 taps (7 parameters)", … for a
// closest_special_case entry.
std::string describe_special_case(const nlohmann::json& special_case);

}  // namespace ufl::analysis
