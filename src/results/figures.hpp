#pragma once
// A run's figures are drawn by the Python scripts beside ufl (scripts/, Matplotlib through
// /usr/bin/python3): ufl itself needs no Python, and says so when they cannot be drawn.
#include <filesystem>
#include <string>

namespace ufl::results {

// Runs `/usr/bin/python3 <source>/scripts/<script> <run>`; returns "" when it drew the figure,
// else one line saying why not (no Python or Matplotlib, the script failed).
std::string draw_figure(const std::string& script, const std::filesystem::path& run);

}  // namespace ufl::results
