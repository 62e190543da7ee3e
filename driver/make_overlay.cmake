# Makes the CUDA toolkit overlay: a CUDA 12.4 root (for clang --cuda-path and
# CMake's CUDA support / FindCUDAToolkit) whose libraries are remote-clang's.
#   cmake -DOVERLAY=.. -DCUDA_ROOT=.. -DLIBDIR=.. -DDRIVER=.. -DLINK_STUB=..
#         [-DCUDA13_INCLUDE=..] -P make_overlay.cmake
# With CUDA13_INCLUDE, also OVERLAY-13: the same toolkit with CUDA 13.0's
# headers, for programs written against CUDA 13 (docs/design/cuda-versions.md).
#
# A build tree's overlay links into CUDA_ROOT (the wheels) and LIBDIR. With
# -DRELOCATABLE=ON (cmake --install, driver/install_overlay.cmake) it is an
# installed tree's: what it takes from CUDA_ROOT and the CUDA 13 wheel is
# copied, each file once (other names of it link to the copy), links within
# LIBDIR (which holds the overlay) are relative, and nvcc and the device-link
# tools find their folder from their own path. Then FATBINARY13 and NVLINK13
# name CUDA 13's tools and WRAPPERS the folder of their wrapper scripts.
cmake_policy(SET CMP0009 NEW) # globs do not follow the overlay's links
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

# Installed: a copy of `source` (a file or a folder, through every link in
# it) at `dest`; a file copied before is linked to instead (NVRTC's and
# libNVVM's several names are one library each).
function(copy_once source dest)
  get_filename_component(real "${source}" REALPATH)
  get_property(copies GLOBAL PROPERTY rc_overlay_copies)
  list(FIND copies "${real}" at)
  if(at GREATER -1)
    math(EXPR at "${at} + 1")
    list(GET copies ${at} first)
    get_filename_component(dir "${dest}" DIRECTORY)
    file(RELATIVE_PATH relative "${dir}" "${first}")
    file(CREATE_LINK "${relative}" "${dest}" SYMBOLIC)
    return()
  endif()
  execute_process(COMMAND cp -RL "${source}" "${dest}" RESULT_VARIABLE failed)
  if(failed)
    message(FATAL_ERROR "make_overlay.cmake: cannot copy ${source} to ${dest}")
  endif()
  if(NOT IS_DIRECTORY "${real}")
    set_property(GLOBAL APPEND PROPERTY rc_overlay_copies "${real}" "${dest}")
  endif()
endfunction()

# dest -> target: a link (relative when installed), or when installed and
# target lies outside LIBDIR, a copy.
function(place target dest)
  if(NOT RELOCATABLE)
    file(CREATE_LINK "${target}" "${dest}" SYMBOLIC)
    return()
  endif()
  string(FIND "${target}" "${LIBDIR}/" inside)
  if(inside EQUAL 0)
    get_filename_component(dir "${dest}" DIRECTORY)
    file(RELATIVE_PATH relative "${dir}" "${target}")
    file(CREATE_LINK "${relative}" "${dest}" SYMBOLIC)
  else()
    copy_once("${target}" "${dest}")
  endif()
endfunction()

function(link target name)
  place("${target}" "${OVERLAY}/${name}")
endfunction()

# A linker script standing for a static archive: it names the runtime
# library by path in a build tree; installed, by name, which GNU ld and lld
# look up beside the script first (lib64/ has the runtime's names).
function(static_name_for archive lib)
  if(RELOCATABLE)
    file(WRITE "${OVERLAY}/lib64/${archive}" "INPUT(${lib})\n")
  else()
    file(WRITE "${OVERLAY}/lib64/${archive}" "INPUT(${LIBDIR}/${lib})\n")
  endif()
endfunction()

# nvcc's opening lines: TOP (its toolkit) and DRIVER as the script uses
# them. Installed, both follow from where the script lies.
function(nvcc_locations overlay out_preamble out_top out_driver)
  if(RELOCATABLE)
    file(RELATIVE_PATH to_driver "${overlay}" "${DRIVER}")
    set(${out_preamble} "top=$(CDPATH= cd -- \"$(dirname -- \"$(readlink -f -- \"$0\")\")/..\" && pwd)\n" PARENT_SCOPE)
    set(${out_top} "$top" PARENT_SCOPE)
    set(${out_driver} "$top/${to_driver}" PARENT_SCOPE)
  else()
    set(${out_preamble} "" PARENT_SCOPE)
    set(${out_top} "${overlay}" PARENT_SCOPE)
    set(${out_driver} "${DRIVER}" PARENT_SCOPE)
  endif()
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
if(RELOCATABLE)
  # CUDA_ROOT's fatbinary and nvlink are wrappers naming the wheel's tools:
  # the installed ones name the copies beside them instead.
  file(MAKE_DIRECTORY "${OVERLAY}/bin/cuda13")
  foreach(tool fatbinary nvlink)
    string(TOUPPER "${tool}" upper)
    copy_once("${${upper}13}" "${OVERLAY}/bin/cuda13/${tool}")
    file(READ "${WRAPPERS}/${tool}-wrapper.sh.in" text)
    string(REPLACE "@${upper}@" "$(dirname -- \"$(readlink -f -- \"$0\")\")/cuda13/${tool}"
           text "${text}")
    file(WRITE "${OVERLAY}/${tool}.tmp" "${text}")
    file(COPY "${OVERLAY}/${tool}.tmp" DESTINATION "${OVERLAY}/bin"
         FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
                          GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
    file(RENAME "${OVERLAY}/bin/${tool}.tmp" "${OVERLAY}/bin/${tool}")
    file(REMOVE "${OVERLAY}/${tool}.tmp")
  endforeach()
else()
  link("${CUDA_ROOT}/bin/fatbinary" bin/fatbinary)
  link("${CUDA_ROOT}/bin/nvlink" bin/nvlink)
endif()
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
nvcc_locations("${OVERLAY}" preamble top driver)
file(WRITE "${OVERLAY}/nvcc.tmp"
"#!/bin/sh
# remote-clang's nvcc: answers CMake's toolkit probes, else runs remote-clang++.
${preamble}case \" $* \" in
  *' --version '*|*' -V '*)
    echo 'nvcc: NVIDIA (R) Cuda compiler driver (remote-clang overlay)'
    echo 'Cuda compilation tools, release 12.4, V12.4.131'
    exit 0 ;;
  *' __cmake_determine_cuda '*)
    echo \"#\\$ TOP=${top}\"
    echo \"#\\$ NVVMIR_LIBRARY_DIR=${top}/nvvm/libdevice\"
    echo \"#\\$ INCLUDES=\\\"-I${top}/include\\\"\"
    exit 0 ;;
esac
exec \"${driver}\" --rc-as-nvcc \"$@\"
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
  static_name_for(lib${lib}_static.a librc_${lib}.so)
endforeach()
# NPP: eleven libraries, one library of stubs.
link("${LIBDIR}/librc_npp.so" lib64/librc_npp.so)
foreach(lib nppc nppial nppicc nppidei nppif nppig nppim nppist nppisu nppitc npps)
  link("${LIBDIR}/librc_npp.so" lib64/lib${lib}.so)
  link("${LIBDIR}/librc_npp.so" lib64/lib${lib}.so.12)
  static_name_for(lib${lib}_static.a librc_npp.so)
endforeach()
# The runtime's own names too: binaries linked through the links above
# record these sonames, and CMake's build RPATH names this directory.
foreach(lib rc_cudart rc_cublas rc_cuda)
  link("${LIBDIR}/lib${lib}.so" lib64/lib${lib}.so)
endforeach()
# Static names as GNU ld / lld linker scripts naming the shared runtime.
static_name_for(libcudart_static.a librc_cudart.so)
static_name_for(libcublas_static.a librc_cublas.so)
static_name_for(libcublasLt_static.a librc_cublas.so)
# Device runtime (device-side launches, which remote-clang does not serve)
# and cudart_static's helper: empty archives.
file(WRITE "${OVERLAY}/lib64/libcudadevrt.a" "!<arch>\n")
file(WRITE "${OVERLAY}/lib64/libculibos.a" "!<arch>\n")

# The wheels' include/ folders are Python packages too: no Python in an
# installed toolkit.
function(drop_python_files folder)
  if(RELOCATABLE)
    file(GLOB_RECURSE python LIST_DIRECTORIES true "${folder}/*")
    list(FILTER python INCLUDE REGEX "/(__pycache__|__init__\\.py)$")
    if(python)
      file(REMOVE_RECURSE ${python})
    endif()
  endif()
endfunction()
drop_python_files("${OVERLAY}")

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
  place("${CUDA13_INCLUDE}/${e}" "${OVERLAY13}/include/${e}")
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
    if(RELOCATABLE) # the copy in OVERLAY
      place("${OVERLAY}/include/${h}" "${OVERLAY13}/include/${h}")
    else()
      place("${CUDA_ROOT}/include/${h}" "${OVERLAY13}/include/${h}")
    endif()
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
  place("${OVERLAY}/${d}" "${OVERLAY13}/${d}")
endforeach()
file(READ "${CUDA13_INCLUDE}/cuda.h" cuda_h)
string(REGEX MATCH "#define CUDA_VERSION ([0-9]+)" _ "${cuda_h}")
math(EXPR major "${CMAKE_MATCH_1} / 1000")
math(EXPR minor "${CMAKE_MATCH_1} % 1000 / 10")
file(WRITE "${OVERLAY13}/version.txt" "CUDA Version ${major}.${minor}.0\n")
file(WRITE "${OVERLAY13}/version.json"
     "{ \"cuda\" : { \"name\" : \"CUDA SDK\", \"version\" : \"${major}.${minor}.0\" } }\n")
nvcc_locations("${OVERLAY13}" preamble top driver)
file(WRITE "${OVERLAY13}/nvcc.tmp"
"#!/bin/sh
# remote-clang's CUDA ${major}.${minor} nvcc: answers CMake's toolkit probes, else
# runs remote-clang++ with CUDA ${major}'s headers.
${preamble}case \" $* \" in
  *' --version '*|*' -V '*)
    echo 'nvcc: NVIDIA (R) Cuda compiler driver (remote-clang overlay)'
    echo 'Cuda compilation tools, release ${major}.${minor}, V${major}.${minor}.0'
    exit 0 ;;
  *' __cmake_determine_cuda '*)
    echo \"#\\$ TOP=${top}\"
    echo \"#\\$ NVVMIR_LIBRARY_DIR=${top}/nvvm/libdevice\"
    echo \"#\\$ INCLUDES=\\\"-I${top}/include\\\"\"
    exit 0 ;;
esac
exec \"${driver}\" --rc-cuda=${major} \"$@\"
")
file(COPY "${OVERLAY13}/nvcc.tmp" DESTINATION "${OVERLAY13}/bin"
     FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
                      GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
file(RENAME "${OVERLAY13}/bin/nvcc.tmp" "${OVERLAY13}/bin/nvcc")
file(REMOVE "${OVERLAY13}/nvcc.tmp")
drop_python_files("${OVERLAY13}")
