#pragma once
// A run's figures are drawn by the Python scripts beside ufl (scripts/, Matplotlib through
// /usr/bin/python3, or the Python the environment variable UFL_PYTHON names): ufl itself needs no
// Python, and says so when they cannot be drawn.
#include <filesystem>
#include <string>

namespace ufl::results {

// The Python that draws figures: $UFL_PYTHON when set, else /usr/bin/python3 (the first python3
// on PATH may lack Debian's NumPy and Matplotlib).
std::string figure_python();

// The folder of those scripts: the installed copy beside the binary (PREFIX/share/ufl/scripts for
// PREFIX/bin/ufl, `cmake --install`; docs/install.md) when there is one, else scripts/ of the
// source tree the binary was built from.
std::filesystem::path scripts_folder();

// Runs `<python> <scripts_folder()>/<script> <run>`; returns "" when it drew the figure, else one
// line saying why not: no such Python, no Matplotlib for it (and how to install it), or the
// script failed. A stop request (Ctrl-C, SIGTERM) ends the script and throws
// interrupt::Interrupted.
std::string draw_figure(const std::string& script, const std::filesystem::path& run);

}  // namespace ufl::results
