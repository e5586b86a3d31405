# `cmake --install` gives users find_package(ksink) (target ksink::sdk, which brings ksink::core,
# ksink::data, ksink::runtime and ksink::table) and pkg-config ksink; with the test kit built, also
# find_package(ksink COMPONENTS testkit) (ksink::testkit) and pkg-config ksink-testkit.
include(CMakePackageConfigHelpers)
install(EXPORT ksinkTargets NAMESPACE ksink:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ksink)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/ksinkConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/ksinkConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ksink)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ksinkConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/ksinkConfig.cmake ${PROJECT_BINARY_DIR}/ksinkConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ksink)
configure_file(${CMAKE_CURRENT_LIST_DIR}/ksink.pc.in ${PROJECT_BINARY_DIR}/ksink.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/ksink.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
# The test kit, when built: find_package(ksink COMPONENTS testkit) and pkg-config ksink-testkit.
if(TARGET ksink_testkit)
  install(EXPORT ksinkTestkitTargets NAMESPACE ksink:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ksink)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/ksink-testkit.pc.in ${PROJECT_BINARY_DIR}/ksink-testkit.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/ksink-testkit.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()
