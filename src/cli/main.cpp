// ufl: main calls the command line (cli/command_line.cpp, compiled into ufl_core).
#include "cli/commands.hpp"

int main(int argc, char** argv) { return ufl::cli::run_command_line(argc, argv); }
