# The TAO target: found, never installed by this project (TAO is in no package registry).
# Included from cpp/orb/CMakeLists.txt, so orbench_add_orb_target() and CMAKE_CURRENT_SOURCE_DIR are those of
# cpp/orb.
#
# Where TAO is looked for, in this order:
#   - the CMake variables ACE_ROOT / TAO_ROOT (-DACE_ROOT=...), else the environment variables of that name;
#     TAO_ROOT defaults to $ACE_ROOT/TAO (the layout of an ACE+TAO source tree built in place);
#   - headers in $ACE_ROOT / $TAO_ROOT (built in place) or their include/ (installed with `make install`);
#   - libraries in $ACE_ROOT/lib;
#   - tao_idl on PATH or in $ACE_ROOT/bin.
# ORBENCH_WITH_TAO: AUTO (default) builds the target when TAO is found and skips it with one message when not;
# ON makes a missing TAO an error; OFF skips it without looking.

set(ORBENCH_WITH_TAO AUTO CACHE STRING "Build the TAO target: AUTO (when found), ON (required) or OFF")
set_property(CACHE ORBENCH_WITH_TAO PROPERTY STRINGS AUTO ON OFF)

set(_tao_hint "set ACE_ROOT (and TAO_ROOT, default \$ACE_ROOT/TAO) to an installed TAO and run make cpp")

if(ORBENCH_WITH_TAO STREQUAL "OFF")
  message(STATUS "TAO target skipped (ORBENCH_WITH_TAO=OFF)")
  return()
endif()

if(NOT ACE_ROOT AND DEFINED ENV{ACE_ROOT})
  set(ACE_ROOT "$ENV{ACE_ROOT}")
endif()
if(NOT TAO_ROOT AND DEFINED ENV{TAO_ROOT})
  set(TAO_ROOT "$ENV{TAO_ROOT}")
endif()
if(NOT TAO_ROOT AND ACE_ROOT)
  set(TAO_ROOT "${ACE_ROOT}/TAO")
endif()

# Searched again at every configure (the cached results are dropped first), so pointing ACE_ROOT at another
# TAO, or unsetting it, takes effect at the next `make cpp` instead of reusing a stale path.
foreach(var TAO_IDL_EXECUTABLE ACE_INCLUDE_DIR TAO_INCLUDE_DIR ACE_LIBRARY TAO_LIBRARY
            TAO_PORTABLESERVER_LIBRARY TAO_ANYTYPECODE_LIBRARY TAO_MESSAGING_LIBRARY TAO_PI_LIBRARY
            TAO_CODECFACTORY_LIBRARY TAO_VALUETYPE_LIBRARY)
  unset(${var} CACHE)
endforeach()

set(_ace_lib_hints)
set(_idl_hints)
if(ACE_ROOT)
  list(APPEND _ace_lib_hints "${ACE_ROOT}/lib")
  list(APPEND _idl_hints "${ACE_ROOT}/bin")
endif()
find_program(TAO_IDL_EXECUTABLE tao_idl HINTS ${_idl_hints})
# An installed TAO without ACE_ROOT: tao_idl on PATH, headers and libraries under the same prefix.
if(TAO_IDL_EXECUTABLE AND NOT ACE_ROOT)
  get_filename_component(_tao_prefix "${TAO_IDL_EXECUTABLE}" DIRECTORY)
  get_filename_component(_tao_prefix "${_tao_prefix}" DIRECTORY)
  list(APPEND _ace_lib_hints "${_tao_prefix}/lib")
  # Installed (PREFIX/include/{ace,tao}) or an ACE+TAO tree built in place (PREFIX/ace, PREFIX/TAO/tao).
  set(_tao_header_hints "${_tao_prefix}/include" "${_tao_prefix}" "${_tao_prefix}/TAO")
endif()
find_path(ACE_INCLUDE_DIR ace/ACE.h HINTS ${ACE_ROOT} ${ACE_ROOT}/include ${_tao_header_hints} NO_DEFAULT_PATH)
find_path(TAO_INCLUDE_DIR tao/ORB.h HINTS ${TAO_ROOT} ${TAO_ROOT}/include ${ACE_ROOT}/include ${_tao_header_hints}
          NO_DEFAULT_PATH)
find_library(ACE_LIBRARY ACE HINTS ${_ace_lib_hints} NO_DEFAULT_PATH)
find_library(TAO_LIBRARY TAO HINTS ${_ace_lib_hints} NO_DEFAULT_PATH)
find_library(TAO_PORTABLESERVER_LIBRARY TAO_PortableServer HINTS ${_ace_lib_hints} NO_DEFAULT_PATH)
find_library(TAO_ANYTYPECODE_LIBRARY TAO_AnyTypeCode HINTS ${_ace_lib_hints} NO_DEFAULT_PATH)

set(_tao_missing)
foreach(var TAO_IDL_EXECUTABLE ACE_INCLUDE_DIR TAO_INCLUDE_DIR ACE_LIBRARY TAO_LIBRARY
            TAO_PORTABLESERVER_LIBRARY TAO_ANYTYPECODE_LIBRARY)
  if(NOT ${var})
    list(APPEND _tao_missing ${var})
  endif()
endforeach()

if(_tao_missing)
  if(NOT ACE_ROOT AND NOT TAO_IDL_EXECUTABLE)
    set(_tao_why "ACE_ROOT is not set and tao_idl is not on PATH")
  else()
    list(JOIN _tao_missing ", " _tao_missing_text)
    set(_tao_why "ACE_ROOT='${ACE_ROOT}' TAO_ROOT='${TAO_ROOT}': not found: ${_tao_missing_text}")
  endif()
  if(ORBENCH_WITH_TAO STREQUAL "ON")
    message(FATAL_ERROR "ORBENCH_WITH_TAO=ON but TAO not found (${_tao_why}); ${_tao_hint}")
  endif()
  # NOTICE goes to stderr, so the line shows even where configure's stdout is hidden (`make cpp`).
  message(NOTICE "TAO not found (${_tao_why}): the tao target is not built; ${_tao_hint}")
  return()
endif()

get_filename_component(_tao_lib_dir "${TAO_LIBRARY}" DIRECTORY)
file(STRINGS "${TAO_INCLUDE_DIR}/tao/Version.h" _tao_version_line REGEX "define TAO_VERSION ")
string(REGEX REPLACE ".*\"(.*)\".*" "\\1" _tao_version "${_tao_version_line}")
message(STATUS "TAO ${_tao_version} (${TAO_INCLUDE_DIR}, tao_idl ${TAO_IDL_EXECUTABLE}): "
               "building orbench-tao-server/-client")

# Stubs are generated into the build tree, never the source tree. tao_idl runs ace_gperf for the skeleton's
# operation table (by default $ACE_ROOT/bin/ace_gperf, so it is named explicitly with -g where found beside
# tao_idl) and needs its own libraries on the loader path.
set(_gen ${CMAKE_CURRENT_BINARY_DIR}/generated/tao)
get_filename_component(_idl_dir "${ORBENCH_IDL}" DIRECTORY)
get_filename_component(_tao_idl_dir "${TAO_IDL_EXECUTABLE}" DIRECTORY)
unset(ACE_GPERF_EXECUTABLE CACHE)
find_program(ACE_GPERF_EXECUTABLE ace_gperf HINTS ${_tao_idl_dir} ${_idl_hints} NO_DEFAULT_PATH)
set(_tao_idl_flags -o ${_gen} -I${_idl_dir})
if(ACE_GPERF_EXECUTABLE)
  list(APPEND _tao_idl_flags -g ${ACE_GPERF_EXECUTABLE})
endif()
set(_tao_idl_env "LD_LIBRARY_PATH=${_tao_lib_dir}:$ENV{LD_LIBRARY_PATH}")
if(ACE_ROOT)
  list(APPEND _tao_idl_env "ACE_ROOT=${ACE_ROOT}" "TAO_ROOT=${TAO_ROOT}")
endif()
add_custom_command(
  OUTPUT ${_gen}/orbenchC.h ${_gen}/orbenchC.cpp ${_gen}/orbenchS.h ${_gen}/orbenchS.cpp
  COMMAND ${CMAKE_COMMAND} -E make_directory ${_gen}
  COMMAND ${CMAKE_COMMAND} -E env ${_tao_idl_env} ${TAO_IDL_EXECUTABLE} ${_tao_idl_flags} ${ORBENCH_IDL}
  DEPENDS ${ORBENCH_IDL}
  COMMENT "tao_idl orbench.idl")

add_library(orbench_tao_stubs STATIC ${_gen}/orbenchC.cpp ${_gen}/orbenchS.cpp)
target_include_directories(orbench_tao_stubs PUBLIC ${_gen})
# SYSTEM: TAO 2.x's own headers warn under -Wall -Wextra (deprecated auto_ptr and the like); our code's
# warnings stay visible.
target_include_directories(orbench_tao_stubs SYSTEM PUBLIC ${ACE_INCLUDE_DIR} ${TAO_INCLUDE_DIR})
# The run-time library path is the build's RPATH (CMake adds the directory of full-path libraries outside the
# system directories), so the workers run without LD_LIBRARY_PATH.
# Optional: TAO_Messaging (with the PI, CodecFactory and Valuetype libraries it needs) gives the client the CORBA
# Messaging SyncScopePolicy (the sync_scope connect option). Without it the target builds all the same and
# refuses sync_scope as unsupported.
find_library(TAO_MESSAGING_LIBRARY TAO_Messaging HINTS ${_ace_lib_hints} NO_DEFAULT_PATH)
find_library(TAO_PI_LIBRARY TAO_PI HINTS ${_ace_lib_hints} NO_DEFAULT_PATH)
find_library(TAO_CODECFACTORY_LIBRARY TAO_CodecFactory HINTS ${_ace_lib_hints} NO_DEFAULT_PATH)
find_library(TAO_VALUETYPE_LIBRARY TAO_Valuetype HINTS ${_ace_lib_hints} NO_DEFAULT_PATH)
if(TAO_MESSAGING_LIBRARY AND TAO_PI_LIBRARY AND TAO_CODECFACTORY_LIBRARY AND TAO_VALUETYPE_LIBRARY)
  message(STATUS "TAO_Messaging found: the tao client takes sync_scope")
  target_compile_definitions(orbench_tao_stubs PUBLIC ORBENCH_TAO_MESSAGING)
  target_link_libraries(orbench_tao_stubs PUBLIC ${TAO_MESSAGING_LIBRARY} ${TAO_PI_LIBRARY}
                        ${TAO_CODECFACTORY_LIBRARY} ${TAO_VALUETYPE_LIBRARY})
  # TAO_Messaging needs TAO_PI and TAO_CodecFactory, which the workers do not call themselves (so the linker
  # leaves them out of NEEDED): DT_RPATH, unlike DT_RUNPATH, also finds a library's own dependencies.
  target_link_options(orbench_tao_stubs PUBLIC -Wl,--disable-new-dtags)
else()
  message(STATUS "TAO_Messaging not found in ${_tao_lib_dir}: the tao client refuses sync_scope (unsupported)")
endif()
target_link_libraries(orbench_tao_stubs PUBLIC ${TAO_PORTABLESERVER_LIBRARY} ${TAO_ANYTYPECODE_LIBRARY}
                      ${TAO_LIBRARY} ${ACE_LIBRARY} Threads::Threads ${CMAKE_DL_LIBS})
orbench_add_orb_target(tao ${CMAKE_CURRENT_SOURCE_DIR}/tao orbench_tao_stubs)
