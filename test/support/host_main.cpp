// The entry point of the host tests: Catch2's session (catch_session.cpp, compiled once for every test executable).
#include "catch_session.hpp"

int main(int argc, char* argv[]) { return tgemm::test::run_catch_session(argc, argv); }
