// The one instance of each Eigen decomposition that eigen.hpp declares `extern template`.
#include "tensor/eigen.hpp"

template class Eigen::JacobiSVD<Eigen::MatrixXd>;
template class Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>;
template class Eigen::HouseholderQR<Eigen::MatrixXd>;
template class Eigen::LLT<Eigen::MatrixXd>;
template class Eigen::LDLT<Eigen::MatrixXd>;
template Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>&
Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>::compute(const Eigen::EigenBase<Eigen::MatrixXd>&,
                                                        int);
template Eigen::LLT<Eigen::MatrixXd>& Eigen::LLT<Eigen::MatrixXd>::compute(
    const Eigen::EigenBase<Eigen::MatrixXd>&);
template Eigen::LDLT<Eigen::MatrixXd>& Eigen::LDLT<Eigen::MatrixXd>::compute(
    const Eigen::EigenBase<Eigen::MatrixXd>&);
