// The CUDA guide's warp matrix functions (nvcuda::wmma): half, bf16, int8,
// double and tf32 fragments, loads, mma, stores, element access.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;
__global__ void wmmaKernel(const half *a, const half *b, float *c) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::col_major> a_frag;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> b_frag;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c_frag;
  wmma::fill_fragment(c_frag, 0.0f);
  wmma::load_matrix_sync(a_frag, a, 16);
  wmma::load_matrix_sync(b_frag, b, 16);
  wmma::mma_sync(c_frag, a_frag, b_frag, c_frag);
  for (int i = 0; i < c_frag.num_elements; i++)
    c_frag.x[i] *= 2.0f;
  wmma::store_matrix_sync(c, c_frag, 16, wmma::mem_row_major);
}
__global__ void wmmaTypes(const __nv_bfloat16 *a, const __nv_bfloat16 *b,
                          float *c, const signed char *ia,
                          const signed char *ib, int *ic, const double *da,
                          const double *db, double *dc, const float *ta,
                          const float *tb) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a1;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> b1;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c1;
  wmma::load_matrix_sync(a1, a, 16);
  wmma::load_matrix_sync(b1, b, 16);
  wmma::fill_fragment(c1, 0.0f);
  wmma::mma_sync(c1, a1, b1, c1);
  wmma::store_matrix_sync(c, c1, 16, wmma::mem_col_major);
  wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> a2;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> b2;
  wmma::fragment<wmma::accumulator, 16, 16, 16, int> c2;
  wmma::load_matrix_sync(a2, ia, 16);
  wmma::load_matrix_sync(b2, ib, 16);
  wmma::fill_fragment(c2, 0);
  wmma::mma_sync(c2, a2, b2, c2);
  wmma::store_matrix_sync(ic, c2, 16, wmma::mem_row_major);
  wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> a3;
  wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> b3;
  wmma::fragment<wmma::accumulator, 8, 8, 4, double> c3;
  wmma::load_matrix_sync(a3, da, 4);
  wmma::load_matrix_sync(b3, db, 4);
  wmma::fill_fragment(c3, 0.0);
  wmma::mma_sync(c3, a3, b3, c3);
  wmma::store_matrix_sync(dc, c3, 8, wmma::mem_row_major);
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32,
                 wmma::row_major>
      a4;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32,
                 wmma::col_major>
      b4;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> c4;
  wmma::load_matrix_sync(a4, ta, 8);
  wmma::load_matrix_sync(b4, tb, 8);
  for (int i = 0; i < a4.num_elements; i++)
    a4.x[i] = wmma::__float_to_tf32(a4.x[i]);
  wmma::fill_fragment(c4, 0.0f);
  wmma::mma_sync(c4, a4, b4, c4);
  wmma::store_matrix_sync(c, c4, 16, wmma::mem_row_major);
}
