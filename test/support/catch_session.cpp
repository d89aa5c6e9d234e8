// Catch2's runner, compiled once for every test executable (host and GPU mains call it): with Catch2 2.x this
// translation unit holds the whole framework.
#if TGEMM_CATCH2_MAJOR >= 3
#include <catch2/catch_session.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

#include "catch_session.hpp"

int tgemm::test::run_catch_session(int argc, char* argv[]) { return Catch::Session().run(argc, argv); }
