#pragma once
// Eigen, included first in every translation unit (CMake passes `-include` for this file).
// GCC 12 reports its own AVX-512 intrinsics (`__Y = __Y` in _mm512_undefined_*) as
// uninitialized (and unaligned AVX-512 loads of small fixed vectors as out of bounds) once Eigen's
// kernels inline them under -march=native; those warnings are about
// the compiler's header, not ours, so they are silenced for exactly this include and nothing else.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Warray-bounds"
#include <Eigen/Dense>
#pragma GCC diagnostic pop
