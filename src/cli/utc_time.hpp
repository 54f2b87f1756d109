#pragma once
// The time stamps of manifests ("2026-11-23T17:40:00Z"): train and analyze record when they ran.
#include <ctime>
#include <string>

namespace ufl::cli {

inline std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

}  // namespace ufl::cli
