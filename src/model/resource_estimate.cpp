#include "model/resource_estimate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "io/available_memory.hpp"

namespace ufl::model {

std::string ResourceEstimate::memory_text() const {
  std::string text = io::format_bytes(peak_bytes) + ":";
  int shown = 0;
  for (const MemoryPart& part : parts) {
    if (part.name == "process") continue;
    text += (shown == 0 ? " " : ", ") + part.name + " " + io::format_bytes(part.bytes);
    if (shown < 2) text += " (" + part.drivers + ")";  // the two largest, with their keys
    ++shown;
  }
  return text;
}

std::string ResourceEstimate::time_text(int steps) const {
  char rate[96] = "";
  if (kernel_gflops > 0)
    std::snprintf(rate, sizeof rate, ", %.0f %% of the product kernel's %.0f measured here",
                  100 * gflops_per_thread / kernel_gflops, kernel_gflops);
  char text[256];
  std::snprintf(text, sizeof text,
                "about %s per step, %s for %d steps on %d thread%s (cost model: %.3g GFLOP per "
                "step at %.0f GFLOP/s per thread%s; an estimate)",
                format_seconds(seconds_per_step).c_str(), format_seconds(total_seconds).c_str(),
                steps, threads, threads == 1 ? "" : "s", flops_per_step / 1e9, gflops_per_thread,
                rate);
  if (final_seconds > 0)
    return std::string(text) + ", of which " + format_seconds(final_seconds) +
           " for the final analysis";
  return text;
}

std::string ResourceEstimate::keys_to_lower() const {
  std::vector<std::string> keys;
  for (const MemoryPart& part : parts) {
    if (part.bytes < 0.25 * peak_bytes) continue;
    for (const std::string& key : part.keys)
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
  }
  std::string text;
  for (std::size_t k = 0; k < keys.size(); ++k)
    text += (k == 0 ? "" : k + 1 == keys.size() ? " or " : ", ") + keys[k];
  return text;
}

std::string format_seconds(double seconds) {
  char text[32];
  if (!std::isfinite(seconds)) return "?";
  if (seconds <= 0) return "0s";
  if (seconds < 1e-3)
    std::snprintf(text, sizeof text, "%.0fµs", seconds * 1e6);
  else if (seconds < 1)
    std::snprintf(text, sizeof text, "%.0fms", seconds * 1e3);
  else if (seconds < 60)
    std::snprintf(text, sizeof text, "%.1fs", seconds);
  else if (seconds < 3600)
    std::snprintf(text, sizeof text, "%dm%02ds", int(seconds) / 60, int(seconds) % 60);
  else if (seconds < 1e7)
    std::snprintf(text, sizeof text, "%dh%02dm", int(seconds / 3600), int(seconds / 60) % 60);
  else
    std::snprintf(text, sizeof text, "%.3g days", seconds / 86400);
  return text;
}

}  // namespace ufl::model
