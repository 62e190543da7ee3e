// Texture references (legacy texture<> API, removed from CUDA 12 headers,
// declared here with clang's builtin attribute as the old headers did)
// cannot be remoted; texture objects can.
// RUN: not %clang_cuda_host -fsyntax-only %s 2>&1 | FileCheck %s

template <class T, int dim = 1, int mode = 0>
struct __attribute__((device_builtin_texture_type)) texture {
  int fake;
};
texture<float, 2> tex2d;
static texture<int> texs[2];
unsigned long long tex_object; // cudaTextureObject_t: fine

// CHECK: diag-texture.cu:10:19: error: remote-clang: texture reference 'tex2d' cannot be remoted
// CHECK: diag-texture.cu:11:21: error: remote-clang: texture reference 'texs' cannot be remoted
// CHECK-NOT: tex_object
// CHECK: 2 errors generated
