// Catch2 as the distribution ships it: v3 (catch_all.hpp) or v2.13 (single header). CMake defines
// TGEMM_CATCH2_MAJOR to the version it found.
#pragma once

#if TGEMM_CATCH2_MAJOR >= 3
#include <catch2/catch_all.hpp>
#else
#include <catch2/catch.hpp>
#endif
