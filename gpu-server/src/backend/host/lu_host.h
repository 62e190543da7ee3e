// The host test device's getrf / getri: LU factorization with partial
// pivoting of one n x n column-major matrix in place, and the inverse from
// those factors, with cuBLAS's conventions (1-based pivot rows, info = i+1
// for the first exactly zero U(i,i), the factorization completed anyway).
// A reference for the tests, not a fast solver.
#ifndef RC_SERVER_LU_HOST_H
#define RC_SERVER_LU_HOST_H

#include <cmath>
#include <complex>
#include <cstdint>
#include <utility>
#include <vector>

namespace rc::server {

template <class T> double luMagnitude(const T &x) { return std::abs(x); }

// `pivots` null: no row exchanges. Returns info.
template <class T> int luFactor(T *a, int64_t lda, int n, int *pivots) {
  int info = 0;
  for (int k = 0; k < n; ++k) {
    int p = k;
    if (pivots) {
      for (int i = k + 1; i < n; ++i)
        if (luMagnitude(a[i + k * lda]) > luMagnitude(a[p + k * lda]))
          p = i;
      pivots[k] = p + 1;
      if (p != k)
        for (int j = 0; j < n; ++j)
          std::swap(a[k + j * lda], a[p + j * lda]);
    }
    T pivot = a[k + k * lda];
    if (pivot == T(0)) {
      if (!info)
        info = k + 1;
      continue;
    }
    for (int i = k + 1; i < n; ++i) {
      a[i + k * lda] /= pivot;
      for (int j = k + 1; j < n; ++j)
        a[i + j * lda] -= a[i + k * lda] * a[k + j * lda];
    }
  }
  return info;
}

// C = inverse of the matrix `a` holds the factors of. Returns info.
template <class T>
int luInvert(const T *a, int64_t lda, int n, const int *pivots, T *c,
             int64_t ldc) {
  for (int i = 0; i < n; ++i)
    if (a[i + i * lda] == T(0))
      return i + 1;
  std::vector<T> x(static_cast<size_t>(n));
  for (int col = 0; col < n; ++col) {
    for (int i = 0; i < n; ++i)
      x[size_t(i)] = T(i == col ? 1 : 0);
    if (pivots) // P e_col: the exchanges in the order getrf made them
      for (int k = 0; k < n; ++k)
        std::swap(x[size_t(k)], x[size_t(pivots[k] - 1)]);
    for (int i = 0; i < n; ++i) // L y = P e (unit diagonal)
      for (int k = 0; k < i; ++k)
        x[size_t(i)] -= a[i + k * lda] * x[size_t(k)];
    for (int i = n - 1; i >= 0; --i) { // U x = y
      for (int k = i + 1; k < n; ++k)
        x[size_t(i)] -= a[i + k * lda] * x[size_t(k)];
      x[size_t(i)] /= a[i + i * lda];
    }
    for (int i = 0; i < n; ++i)
      c[i + col * ldc] = x[size_t(i)];
  }
  return 0;
}

} // namespace rc::server

#endif
