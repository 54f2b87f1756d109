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

// The decompositions ufl uses on double matrices are compiled once, in tensor/eigen.cpp, rather
// than in every file that uses one (a JacobiSVD alone is 5-10 s of compile time per file at -O3).
// The code is Eigen's either way, with the same flags, so results do not change.
extern template class Eigen::JacobiSVD<Eigen::MatrixXd>;
extern template class Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>;
extern template class Eigen::HouseholderQR<Eigen::MatrixXd>;
extern template class Eigen::LLT<Eigen::MatrixXd>;
extern template class Eigen::LDLT<Eigen::MatrixXd>;
// Their constructors from a matrix call a member template, compute<InputType>, which the class's
// instantiation leaves out: for a MatrixXd argument it is compiled once in eigen.cpp too (the
// eigensolver's alone is about 6 s per file).
extern template Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>&
Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>::compute(const Eigen::EigenBase<Eigen::MatrixXd>&,
                                                        int);
extern template Eigen::LLT<Eigen::MatrixXd>& Eigen::LLT<Eigen::MatrixXd>::compute(
    const Eigen::EigenBase<Eigen::MatrixXd>&);
extern template Eigen::LDLT<Eigen::MatrixXd>& Eigen::LDLT<Eigen::MatrixXd>::compute(
    const Eigen::EigenBase<Eigen::MatrixXd>&);
