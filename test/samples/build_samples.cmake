# Configures (from scratch) and builds the sample project with remote-clang.
#   cmake -DSRC=<project> -DBIN=<build dir> -P ...   (remote-clang++ on PATH)
file(REMOVE_RECURSE "${BIN}")
execute_process(
  COMMAND "${CMAKE_COMMAND}" -S "${SRC}" -B "${BIN}" -G Ninja
          -DCMAKE_CXX_COMPILER=remote-clang++
          -DCMAKE_CUDA_COMPILER=remote-clang++
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring the samples failed (${rc})")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${BIN}" -j 2 -v
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building the samples failed (${rc})")
endif()
