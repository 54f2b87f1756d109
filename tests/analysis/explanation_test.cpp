// The one line after `ufl train` that says why a mixer did worse (universality spec §2-3): from a
// run's metrics, hand-written here, to the sentence a user reads.
#include "analysis/explanation.hpp"

#include <doctest/doctest.h>

using nlohmann::json;
using ufl::analysis::describe_special_case;
using ufl::analysis::explain_run;

namespace {

json optimum_is(const json& special_case, double negative_share = 0.0) {
  return {{"closest_special_case", special_case}, {"negative_energy_share", negative_share}};
}

const json kFourier = {{"mixer", "fourier"}, {"parameters", 17}};

}  // namespace

TEST_CASE("a special case is named with its size and parameter count") {
  CHECK(describe_special_case(kFourier) == "fourier (17 parameters)");
  CHECK(describe_special_case({{"mixer", "convolution"}, {"kernel_width", 7}, {"parameters", 7}}) ==
        "convolution with 7 taps (7 parameters)");
  CHECK(describe_special_case({{"mixer", "lowrank"}, {"rank", 4}, {"parameters", 240}}) ==
        "lowrank of rank 4 (240 parameters)");
  CHECK(describe_special_case(
            {{"mixer", "attention"}, {"input_dependent", true}, {"parameters", 3168}}) ==
        "attention (input-dependent, 3168 parameters)");
  CHECK(describe_special_case({{"mixer", "none"}}).rfind("none", 0) == 0);
}

TEST_CASE("a mixer whose operators cannot express the optimum is told so, with both η") {
  const json metrics = {{"mixer", "convolution"},
                        {"dataset", "periodic"},
                        {"eta", 0.612},
                        {"optimal", optimum_is(kFourier)},
                        {"mixer_reach",
                         {{"operators", "one band of 5 taps, the same on every row"},
                          {"input_dependent", false},
                          {"best_fixed_eta", 0.615}}}};
  CHECK(explain_run(metrics) ==
        "convolution reached η 0.612 on periodic; the optimum's closest special case is fourier "
        "(17 parameters). A convolution layer is one band of 5 taps, the same on every row; the "
        "best such operator reaches η 0.615 here: it cannot express the optimum.");
}

TEST_CASE("a mixer that can express the optimum but fell short blames training") {
  const json metrics = {{"mixer", "linear"},
                        {"dataset", "local"},
                        {"eta", 0.5},
                        {"optimal", optimum_is(kFourier)},
                        {"mixer_reach",
                         {{"operators", "any fixed n×n matrix"},
                          {"input_dependent", false},
                          {"best_fixed_eta", 1.0}}}};
  const std::string line = explain_run(metrics);
  CHECK(line.find("A linear layer is any fixed n×n matrix") != std::string::npos);
  CHECK(line.find("so the gap is training") != std::string::npos);
  CHECK(line.find('\n') == std::string::npos);
}

TEST_CASE("a run that reached what its mixer can be says so") {
  const json metrics = {
      {"mixer", "universal"},
      {"dataset", "periodic"},
      {"eta", 0.997},
      {"optimal", optimum_is(kFourier)},
      {"mixer_reach", {{"operators", "x"}, {"input_dependent", true}, {"best_fixed_eta", 1.001}}}};
  const std::string line = explain_run(metrics);
  CHECK(line.find("A universal layer is x") != std::string::npos);
  CHECK(line.find("the best fixed operator it can be reaches η 1.001 here: this run reached it.") !=
        std::string::npos);
}

TEST_CASE("attention is told which share of the optimum softmax rows cannot hold") {
  json metrics = {
      {"mixer", "attention"},
      {"dataset", "local"},
      {"eta", 0.4},
      {"optimal",
       optimum_is({{"mixer", "convolution"}, {"kernel_width", 7}, {"parameters", 7}}, 0.25)},
      {"mixer_reach", {{"operators", "softmax rows"}, {"input_dependent", true}}}};
  CHECK(explain_run(metrics) ==
        "attention reached η 0.400 on local; the optimum's closest special case is convolution "
        "with 7 taps (7 parameters). An attention layer is softmax rows; 25% of the optimum's "
        "energy lies in negative entries, which it cannot express.");
  metrics["optimal"]["negative_energy_share"] = 0.0;
  CHECK(explain_run(metrics).find("the optimum has no negative entries") != std::string::npos);
}

TEST_CASE("an input-dependent mixer on input-dependent data: past every fixed operator or not") {
  const json optimum =
      optimum_is({{"mixer", "attention"}, {"input_dependent", true}, {"parameters", 3168}});
  json metrics = {
      {"mixer", "universal"},
      {"dataset", "global"},
      {"eta", 0.66},
      {"optimal", optimum},
      {"mixer_reach", {{"operators", "x"}, {"input_dependent", true}, {"best_fixed_eta", 0.56}}}};
  CHECK(explain_run(metrics).find("input dependence takes this run past every such operator") !=
        std::string::npos);
  metrics["eta"] = 0.5;
  CHECK(explain_run(metrics).find("this run did not get past them") != std::string::npos);
}
