# Makes the CUDA toolkit overlay: a CUDA 12.4 root (for clang --cuda-path and
# CMake's CUDA support / FindCUDAToolkit) whose libraries are remote-clang's.
#   cmake -DOVERLAY=.. -DCUDA_ROOT=.. -DLIBDIR=.. -DDRIVER=.. -DLINK_STUB=..
#         [-DCUDA13_INCLUDE=..] -P make_overlay.cmake
# With CUDA13_INCLUDE, also OVERLAY-13: the same toolkit with CUDA 13.0's
# headers, for programs written against CUDA 13 (docs/design/cuda-versions.md).
foreach(v OVERLAY CUDA_ROOT LIBDIR DRIVER LINK_STUB)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "make_overlay.cmake: -D${v}= is required")
  endif()
endforeach()
if(NOT EXISTS "${CUDA_ROOT}/include/cuda_runtime.h")
  message(FATAL_ERROR "${CUDA_ROOT} is not a CUDA root (run scripts/setup.sh)")
endif()

file(REMOVE_RECURSE "${OVERLAY}")
file(MAKE_DIRECTORY "${OVERLAY}/bin" "${OVERLAY}/nvvm" "${OVERLAY}/lib64/stubs")

function(link target name)
  file(CREATE_LINK "${target}" "${OVERLAY}/${name}" SYMBOLIC)
endfunction()

link("${CUDA_ROOT}/include" include)
foreach(d libdevice include)
  link("${CUDA_ROOT}/nvvm/${d}" nvvm/${d})
endforeach()
# libNVVM, a host library, is the toolkit's own. The wheel ships only
# libnvvm.so, whose soname is libnvvm.so.4: programs linked to it look for
# that name at run time, in the folder CMake puts in their RUNPATH.
file(MAKE_DIRECTORY "${OVERLAY}/nvvm/lib64")
file(GLOB nvvm_libs "${CUDA_ROOT}/nvvm/lib64/libnvvm.so*")
foreach(lib ${nvvm_libs})
  get_filename_component(name "${lib}" NAME)
  link("${lib}" nvvm/lib64/${name})
endforeach()
if(NOT EXISTS "${OVERLAY}/nvvm/lib64/libnvvm.so.4")
  link("${CUDA_ROOT}/nvvm/lib64/libnvvm.so" nvvm/lib64/libnvvm.so.4)
endif()
# Headers clang needs to read differently, searched before include/ (the
# driver's -isystem order). Made from the pinned wheels' own text.
#
# cuda::barrier<thread_scope_block>'s destructor invalidates the mbarrier.
# nvcc runs no constructor or destructor of a __shared__ variable (it warns,
# and the CUDA guide's idiom `__shared__ cuda::barrier<...> bar;` suppresses
# that warning); clang refuses the variable outright because the destructor
# is not empty. Defaulting it makes clang accept the idiom with nvcc's
# meaning; the invalidation stays in the header as an unused member.
set(barrier_header cuda/__barrier/barrier_block_scope.h)
function(default_barrier_destructor cccl_dir clang_include)
  file(READ "${cccl_dir}/${barrier_header}" text)
  set(destructor "_LIBCUDACXX_HIDE_FROM_ABI ~barrier()\n  {")
  string(FIND "${text}" "${destructor}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "make_overlay.cmake: ${barrier_header} of the pinned "
            "CCCL wheel has no destructor to default (did the pin change?)")
  endif()
  string(REPLACE "${destructor}"
         "_LIBCUDACXX_HIDE_FROM_ABI ~barrier() = default; // remote-clang\n\
  _LIBCUDACXX_HIDE_FROM_ABI void __invalidate_as_nvcc_never_does()\n  {"
         text "${text}")
  file(WRITE "${clang_include}/${barrier_header}" "${text}")
endfunction()
default_barrier_destructor("${CUDA_ROOT}/include" "${OVERLAY}/clang-include")

link("${CUDA_ROOT}/bin/ptxas" bin/ptxas)
link("${CUDA_ROOT}/bin/fatbinary" bin/fatbinary)
link("${CUDA_ROOT}/bin/nvlink" bin/nvlink)
# CMake's device link of a Clang CUDA target compiles bin/crt/link.stub
# (remote-clang's own, driver/link.stub).
file(MAKE_DIRECTORY "${OVERLAY}/bin/crt")
file(COPY_FILE "${LINK_STUB}" "${OVERLAY}/bin/crt/link.stub")
file(COPY "${CUDA_ROOT}/version.json" "${CUDA_ROOT}/version.txt"
     DESTINATION "${OVERLAY}")

# nvcc: CMake runs `nvcc -v __cmake_determine_cuda` and `nvcc --version` to
# find the toolkit root and version of a Clang CUDA compiler. Anything else
# goes to remote-clang++ as nvcc's (--rc-as-nvcc: nvcc's -v, -dryrun,
# --help, .c sources as C, gcc's host diagnostics; docs/nvcc-options.md).
file(WRITE "${OVERLAY}/nvcc.tmp"
"#!/bin/sh
# remote-clang's nvcc: answers CMake's toolkit probes, else runs remote-clang++.
case \" $* \" in
  *' --version '*|*' -V '*)
    echo 'nvcc: NVIDIA (R) Cuda compiler driver (remote-clang overlay)'
    echo 'Cuda compilation tools, release 12.4, V12.4.131'
    exit 0 ;;
  *' __cmake_determine_cuda '*)
    echo '#$ TOP=${OVERLAY}'
    echo '#$ NVVMIR_LIBRARY_DIR=${OVERLAY}/nvvm/libdevice'
    echo '#$ INCLUDES=\"-I${OVERLAY}/include\"'
    exit 0 ;;
esac
exec '${DRIVER}' --rc-as-nvcc \"$@\"
")
file(COPY "${OVERLAY}/nvcc.tmp" DESTINATION "${OVERLAY}/bin"
     FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
                      GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
file(RENAME "${OVERLAY}/bin/nvcc.tmp" "${OVERLAY}/bin/nvcc")
file(REMOVE "${OVERLAY}/nvcc.tmp")

# Libraries: links resolve once the runtime is built (they may dangle now).
link("${LIBDIR}/librc_cudart.so" lib64/libcudart.so)
link("${LIBDIR}/librc_cudart.so" lib64/libcudart.so.12)
link("${LIBDIR}/librc_cublas.so" lib64/libcublas.so)
link("${LIBDIR}/librc_cublas.so" lib64/libcublas.so.12)
link("${LIBDIR}/librc_cublas.so" lib64/libcublasLt.so)
link("${LIBDIR}/librc_cublas.so" lib64/libcublasLt.so.12)
link("${LIBDIR}/librc_cuda.so" lib64/libcuda.so)
link("${LIBDIR}/librc_cuda.so" lib64/libcuda.so.1)
link("${LIBDIR}/librc_cuda.so" lib64/stubs/libcuda.so)
# NVRTC is NVIDIA's own: it runs on the client (docs/driver-api.md). The
# runtime's folder has it too (runtime/CMakeLists.txt).
file(GLOB nvrtc_libs "${CUDA_ROOT}/lib64/libnvrtc*.so*")
foreach(lib ${nvrtc_libs})
  get_filename_component(name "${lib}" NAME)
  link("${lib}" lib64/${name})
endforeach()
# Libraries of stubs only (runtime/CMakeLists.txt, rc_stub_library), with
# the sonames CUDA 12.4's have, and their own (see below).
foreach(lib_so curand:10 cufft:11 cusparse:12 cusolver:11 nvjpeg:12 nvJitLink:12)
  string(REPLACE ":" ";" parts ${lib_so})
  list(GET parts 0 lib)
  list(GET parts 1 so)
  link("${LIBDIR}/librc_${lib}.so" lib64/lib${lib}.so)
  link("${LIBDIR}/librc_${lib}.so" lib64/lib${lib}.so.${so})
  link("${LIBDIR}/librc_${lib}.so" lib64/librc_${lib}.so)
  file(WRITE "${OVERLAY}/lib64/lib${lib}_static.a" "INPUT(${LIBDIR}/librc_${lib}.so)\n")
endforeach()
# NPP: eleven libraries, one library of stubs.
link("${LIBDIR}/librc_npp.so" lib64/librc_npp.so)
foreach(lib nppc nppial nppicc nppidei nppif nppig nppim nppist nppisu nppitc npps)
  link("${LIBDIR}/librc_npp.so" lib64/lib${lib}.so)
  link("${LIBDIR}/librc_npp.so" lib64/lib${lib}.so.12)
  file(WRITE "${OVERLAY}/lib64/lib${lib}_static.a" "INPUT(${LIBDIR}/librc_npp.so)\n")
endforeach()
# The runtime's own names too: binaries linked through the links above
# record these sonames, and CMake's build RPATH names this directory.
foreach(lib rc_cudart rc_cublas rc_cuda)
  link("${LIBDIR}/lib${lib}.so" lib64/lib${lib}.so)
endforeach()
# Static names as GNU ld / lld linker scripts naming the shared runtime.
file(WRITE "${OVERLAY}/lib64/libcudart_static.a" "INPUT(${LIBDIR}/librc_cudart.so)\n")
file(WRITE "${OVERLAY}/lib64/libcublas_static.a" "INPUT(${LIBDIR}/librc_cublas.so)\n")
file(WRITE "${OVERLAY}/lib64/libcublasLt_static.a" "INPUT(${LIBDIR}/librc_cublas.so)\n")
# Device runtime (device-side launches, which remote-clang does not serve)
# and cudart_static's helper: empty archives.
file(WRITE "${OVERLAY}/lib64/libcudadevrt.a" "!<arch>\n")
file(WRITE "${OVERLAY}/lib64/libculibos.a" "!<arch>\n")

# ---- CUDA 13 ----------------------------------------------------------------
# OVERLAY-13: CUDA 13.0's headers over the same tools and libraries. clang
# still gets --cuda-path=OVERLAY (it reads the CUDA version from cuda.h and
# would emit PTX 8.5, which the pinned ptxas 12.4 refuses); the drivers put
# these headers first instead (remote-clang.py.in, cuda13_headers).
if(NOT CUDA13_INCLUDE)
  return()
endif()
set(OVERLAY13 "${OVERLAY}-13")
file(REMOVE_RECURSE "${OVERLAY13}")
file(MAKE_DIRECTORY "${OVERLAY13}/bin" "${OVERLAY13}/include"
     "${OVERLAY13}/clang-include")
file(GLOB entries RELATIVE "${CUDA13_INCLUDE}" "${CUDA13_INCLUDE}/*")
foreach(e ${entries})
  file(CREATE_LINK "${CUDA13_INCLUDE}/${e}" "${OVERLAY13}/include/${e}" SYMBOLIC)
endforeach()
# The libraries' headers (cuBLAS, cuRAND, ... NVRTC) are CUDA 12's: their
# CUDA 13 wheels are not pinned, and remote-clang serves the 12 APIs.
file(GLOB lib_headers RELATIVE "${CUDA_ROOT}/include"
     "${CUDA_ROOT}/include/cublas*" "${CUDA_ROOT}/include/cufft*"
     "${CUDA_ROOT}/include/curand*" "${CUDA_ROOT}/include/cusolver*"
     "${CUDA_ROOT}/include/cusparse*" "${CUDA_ROOT}/include/npp*"
     "${CUDA_ROOT}/include/nvjpeg*" "${CUDA_ROOT}/include/nvJitLink*"
     "${CUDA_ROOT}/include/nvrtc*" "${CUDA_ROOT}/include/nvblas*"
     "${CUDA_ROOT}/include/cuda_profiler_api.h"
     "${CUDA_ROOT}/include/cudaProfiler.h")
foreach(h ${lib_headers})
  if(NOT EXISTS "${OVERLAY13}/include/${h}")
    file(CREATE_LINK "${CUDA_ROOT}/include/${h}" "${OVERLAY13}/include/${h}" SYMBOLIC)
  endif()
endforeach()
default_barrier_destructor("${CUDA13_INCLUDE}/cccl" "${OVERLAY13}/clang-include")
# clang 19's CUDA wrapper includes texture_fetch_functions.h, which CUDA 13
# removed with texture references.
file(WRITE "${OVERLAY13}/clang-include/texture_fetch_functions.h"
     "/* remote-clang: CUDA 13 has no texture references (clang's CUDA wrapper\n"
     "   includes this header of older toolkits). */\n")
# CUDA 13 gave nine CUDA 12 names of the runtime API a new ABI: steer them
# to the runtime's symbols of that ABI before any declaration is seen. The
# drivers -include the header in host compiles; in CUDA compiles clang's
# own wrapper comes first, and its first include is cuda.h.
file(COPY_FILE "${CUDA13_ABI}" "${OVERLAY13}/clang-include/rc-cuda13-abi.h")
foreach(h cuda.h cuda_runtime.h cuda_runtime_api.h)
  file(WRITE "${OVERLAY13}/clang-include/${h}"
       "/* remote-clang: CUDA 13's ${h} on remote-clang's runtime. */\n"
       "#include \"rc-cuda13-abi.h\"\n"
       "#include_next <${h}>\n")
endforeach()
foreach(d bin/ptxas bin/fatbinary bin/nvlink bin/crt lib64 nvvm)
  file(CREATE_LINK "${OVERLAY}/${d}" "${OVERLAY13}/${d}" SYMBOLIC)
endforeach()
file(READ "${CUDA13_INCLUDE}/cuda.h" cuda_h)
string(REGEX MATCH "#define CUDA_VERSION ([0-9]+)" _ "${cuda_h}")
math(EXPR major "${CMAKE_MATCH_1} / 1000")
math(EXPR minor "${CMAKE_MATCH_1} % 1000 / 10")
file(WRITE "${OVERLAY13}/version.txt" "CUDA Version ${major}.${minor}.0\n")
file(WRITE "${OVERLAY13}/version.json"
     "{ \"cuda\" : { \"name\" : \"CUDA SDK\", \"version\" : \"${major}.${minor}.0\" } }\n")
file(WRITE "${OVERLAY13}/nvcc.tmp"
"#!/bin/sh
# remote-clang's CUDA ${major}.${minor} nvcc: answers CMake's toolkit probes, else
# runs remote-clang++ with CUDA ${major}'s headers.
case \" $* \" in
  *' --version '*|*' -V '*)
    echo 'nvcc: NVIDIA (R) Cuda compiler driver (remote-clang overlay)'
    echo 'Cuda compilation tools, release ${major}.${minor}, V${major}.${minor}.0'
    exit 0 ;;
  *' __cmake_determine_cuda '*)
    echo '#$ TOP=${OVERLAY13}'
    echo '#$ NVVMIR_LIBRARY_DIR=${OVERLAY13}/nvvm/libdevice'
    echo '#$ INCLUDES=\"-I${OVERLAY13}/include\"'
    exit 0 ;;
esac
exec '${DRIVER}' --rc-cuda=${major} \"$@\"
")
file(COPY "${OVERLAY13}/nvcc.tmp" DESTINATION "${OVERLAY13}/bin"
     FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
                      GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
file(RENAME "${OVERLAY13}/bin/nvcc.tmp" "${OVERLAY13}/bin/nvcc")
file(REMOVE "${OVERLAY13}/nvcc.tmp")

