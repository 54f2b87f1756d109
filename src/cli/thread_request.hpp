#pragma once
// The OpenMP thread count a command starts with (docs/running.md, "Threads on a shared machine"):
// --threads, else OMP_NUM_THREADS when it is a count OpenMP can use, else every core (ufl train
// then follows the cores other work leaves free).

namespace ufl::cli {

// Sets the command's thread count from --threads (`requested`, 0 when not given), never more
// than the cores this process may run on (more only makes threads wait for each other). Warns
// about an OMP_NUM_THREADS that OpenMP cannot use ("", "abc", "0"), which is then ignored.
void set_threads(int requested);

// The user fixed the count: --threads, or an OMP_NUM_THREADS that OpenMP uses. ufl train's
// thread governor follows the free cores only when neither did.
bool threads_fixed(int requested);

}  // namespace ufl::cli
