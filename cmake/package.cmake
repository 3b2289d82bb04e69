# Install rules, and with BENCHWATCH_PACKAGE the files only a package carries (the man page made
# by help2man from the binary's help, the Debian changelog and copyright) and CPack's Debian
# package: `cpack -G DEB` in the build folder writes benchwatch_VERSION_ARCH.deb, its Depends
# computed by dpkg-shlibdeps. scripts/package drives it.
include(GNUInstallDirs)
install(TARGETS benchwatch RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_SOURCE_DIR}/packaging/benchwatch.bash-completion
  DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/bash-completion/completions RENAME benchwatch)

if(NOT BENCHWATCH_PACKAGE)
  install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})
  return()
endif()

find_program(BENCHWATCH_HELP2MAN help2man)
find_program(BENCHWATCH_GZIP gzip)
if(NOT BENCHWATCH_HELP2MAN OR NOT BENCHWATCH_GZIP)
  message(FATAL_ERROR "BENCHWATCH_PACKAGE needs help2man and gzip for the man page: "
    "apt-get install help2man gzip (scripts/package does)")
endif()
# The changelog's newest entry must be the version being packaged.
file(STRINGS ${PROJECT_SOURCE_DIR}/packaging/changelog changelog_head LIMIT_COUNT 1)
if(NOT changelog_head MATCHES "^benchwatch \\(${PROJECT_VERSION}\\) ")
  message(FATAL_ERROR "packaging/changelog starts with '${changelog_head}', not an entry for "
    "${PROJECT_VERSION}; add one for this version at its top")
endif()

set(package_dir ${PROJECT_BINARY_DIR}/package)
file(MAKE_DIRECTORY ${package_dir})
add_custom_command(OUTPUT ${package_dir}/benchwatch.1.gz
  COMMAND ${PROJECT_SOURCE_DIR}/packaging/man-page $<TARGET_FILE:benchwatch>
    ${package_dir}/benchwatch.1
  COMMAND ${BENCHWATCH_GZIP} -9nf ${package_dir}/benchwatch.1
  DEPENDS benchwatch ${PROJECT_SOURCE_DIR}/packaging/man-page
  COMMENT "Writing the man page from benchwatch --help")
add_custom_command(OUTPUT ${package_dir}/changelog.gz
  COMMAND ${BENCHWATCH_GZIP} -9nc ${PROJECT_SOURCE_DIR}/packaging/changelog
    > ${package_dir}/changelog.gz
  DEPENDS ${PROJECT_SOURCE_DIR}/packaging/changelog)
add_custom_command(OUTPUT ${package_dir}/copyright
  COMMAND ${CMAKE_COMMAND} -DLICENSE=${PROJECT_SOURCE_DIR}/LICENSE
    -DUPLOT_LICENSE=${BENCHWATCH_NODE_MODULES}/uplot/LICENSE -DOUTPUT=${package_dir}/copyright
    -P ${PROJECT_SOURCE_DIR}/cmake/debian_copyright.cmake
  DEPENDS ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/cmake/debian_copyright.cmake
    benchwatch)
add_custom_target(benchwatch_package_files ALL DEPENDS ${package_dir}/benchwatch.1.gz
  ${package_dir}/changelog.gz ${package_dir}/copyright)
install(FILES ${package_dir}/benchwatch.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${package_dir}/changelog.gz ${package_dir}/copyright
  DESTINATION ${CMAKE_INSTALL_DOCDIR})

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME benchwatch)
set(CPACK_PACKAGE_VENDOR "the benchwatch authors")
set(CPACK_PACKAGE_CONTACT "the benchwatch authors <maintainers@benchwatch.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "continuous benchmarking: reports pull requests' changes beyond their noise")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "benchwatch records every benchmark run by commit, learns
from the default branch how much each benchmark moves on its own between
consecutive runs, compares a pull request with its merge base, and writes one
report that lists only the changes bigger than that benchmark's own noise.
It reads the results of Google Benchmark, BenchmarkTools.jl, hyperfine,
pytest-benchmark, Criterion.rs, go test -bench, Catch2, JMH and more, and
serves a history dashboard.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# libpq is opened at run time when a PostgreSQL store is used, so dpkg-shlibdeps cannot see it.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libpq5")
# record, run and compare take commits, branches and merge bases from git, and history-branch
# is git; without it benchwatch still reads full SHAs given by --commit/--head/--base, serves
# and writes sites, so git is recommended (installed by default) rather than required.
# ca-certificates: the GitHub and GitLab reports and record --server over HTTPS.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "git, ca-certificates")
# run --instrument callgrind runs the benchmarks under valgrind.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "valgrind")
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
include(CPack)
