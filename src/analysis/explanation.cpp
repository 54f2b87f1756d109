// explain_run(): the one line a user reads after `ufl train`; see explanation.hpp.
#include "analysis/explanation.hpp"

#include <cmath>
#include <cstdio>

#include "analysis/closest_special_case.hpp"

namespace ufl::analysis {
namespace {

using nlohmann::json;

std::string eta_text(double eta) {
  char text[32];
  std::snprintf(text, sizeof text, "η %.3f", eta);
  return text;
}

std::string percent_text(double share) {
  char text[32];
  std::snprintf(text, sizeof text, share < 0.1 ? "%.1f%%" : "%.0f%%", 100 * share);
  return text;
}

}  // namespace

std::string describe_special_case(const json& special_case) {
  const std::string mixer = special_case.value("mixer", std::string("?"));
  if (mixer == "none") return "none (no fit keeps 95% of its η)";
  std::string text = mixer;
  if (special_case.contains("kernel_width"))
    text += " with " + std::to_string(special_case["kernel_width"].get<int>()) + " taps";
  if (special_case.contains("rank"))
    text += " of rank " + std::to_string(special_case["rank"].get<int>());
  text += " (";
  if (special_case.value("input_dependent", false)) text += "input-dependent, ";
  return text + std::to_string(special_case.value("parameters", 0LL)) + " parameters)";
}

std::string explain_run(const json& metrics) {
  const std::string mixer = metrics.value("mixer", std::string("?"));
  const double eta = metrics.value("eta", std::nan(""));
  std::string line =
      mixer + " reached " + eta_text(eta) + " on " + metrics.value("dataset", std::string("?"));
  const json optimal = metrics.value("optimal", json::object());
  const json optimum_case = optimal.value("closest_special_case", json::object());
  const bool optimum_input_dependent = optimum_case.value("input_dependent", false);
  if (!optimum_case.empty())
    line += "; the optimum's closest special case is " + describe_special_case(optimum_case);
  const json reach = metrics.value("mixer_reach", json::object());
  if (reach.empty()) return line + ".";
  // "an attention layer", "a universal layer".
  const bool vowel = std::string("aeio").find(mixer.front()) != std::string::npos;
  line += std::string(". ") + (vowel ? "An " : "A ") + mixer + " layer is " +
          reach.value("operators", std::string("?"));

  if (!reach.contains("best_fixed_eta")) {
    // Attention: input-dependent, row-stochastic; what softmax rows cannot hold of the optimum.
    const double negative = optimal.value("negative_energy_share", 0.0);
    if (negative >= 1e-3)
      return line + "; " + percent_text(negative) +
             " of the optimum's energy lies in negative entries, which it cannot express.";
    return line + "; the optimum has no negative entries, so softmax rows do not rule it out.";
  }
  const double best = reach["best_fixed_eta"].get<double>();
  const bool input_dependent = reach.value("input_dependent", false);
  line += input_dependent
              ? "; the best fixed operator it can be reaches " + eta_text(best) + " here"
              : "; the best such operator reaches " + eta_text(best) + " here";
  if (input_dependent && optimum_input_dependent)
    return line + (eta > best ? ": input dependence takes this run past every such operator."
                              : ": this run did not get past them.");
  if (best < kParsimonyShare)
    return line + (input_dependent ? ": no fixed operator it can be expresses the optimum."
                                   : ": it cannot express the optimum.");
  if (eta < kParsimonyShare * best)
    return line + ": it can express the optimum, so the gap is training.";
  return line + ": this run reached it.";
}

}  // namespace ufl::analysis
