// The program autoconf's AC_CHECK_LIB([cublas], [cublasInit]) links to
// decide whether cuBLAS is there (SHOC's configure).
extern "C" char cublasInit();
int main() { return cublasInit(); }
