# How ksink's libraries are declared, once for all of them.

# ksink_layer(<name> [OUTPUT_NAME <file name>] SOURCES <files>...): one of the installed shared
# layers (core, data, runtime, table) as ksink::<name>: versioned, public headers in include/ (all
# of include/ksink installed), internals in src/, exported in ksinkTargets for find_package(ksink).
function(ksink_layer name)
  cmake_parse_arguments(ARG "" "OUTPUT_NAME" "SOURCES" ${ARGN})
  if(NOT ARG_OUTPUT_NAME)
    set(ARG_OUTPUT_NAME ksink_${name})
  endif()
  add_library(ksink_${name} SHARED ${ARG_SOURCES})
  add_library(ksink::${name} ALIAS ksink_${name})
  set_target_properties(ksink_${name} PROPERTIES OUTPUT_NAME ${ARG_OUTPUT_NAME} EXPORT_NAME ${name}
                        POSITION_INDEPENDENT_CODE ON VERSION ${PROJECT_VERSION}
                        SOVERSION ${PROJECT_VERSION_MAJOR})
  target_include_directories(ksink_${name}
    PUBLIC $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
    PRIVATE src)
  install(TARGETS ksink_${name} EXPORT ksinkTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(DIRECTORY include/ksink DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endfunction()

# ksink_connector(<name> <version define> SOURCES <files>... PUBLIC <libs>... [LINK <libs>...]): a
# reference connector's library ksink::<name> (a sink on the table toolkit, a source on the
# runtime), its headers in include/ and src/, <version define> its version string for the registry.
function(ksink_connector name version_define)
  cmake_parse_arguments(ARG "" "" "SOURCES;PUBLIC;LINK" ${ARGN})
  add_library(ksink_${name} ${ARG_SOURCES})
  add_library(ksink::${name} ALIAS ksink_${name})
  set_target_properties(ksink_${name} PROPERTIES EXPORT_NAME ${name} POSITION_INDEPENDENT_CODE ON)
  target_include_directories(ksink_${name}
    PUBLIC $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
    PRIVATE src)
  target_link_libraries(ksink_${name} PUBLIC ${ARG_PUBLIC} PRIVATE ${ARG_LINK} spdlog::spdlog)
  target_compile_definitions(ksink_${name} PRIVATE ${version_define}="${PROJECT_VERSION}")
endfunction()
