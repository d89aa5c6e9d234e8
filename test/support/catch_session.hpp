// The Catch2 session every test main runs (catch_session.cpp), declared without Catch2's header.
#pragma once

namespace tgemm::test {

/// Runs the Catch2 tests linked into this executable with the command line's options; returns the exit code.
int run_catch_session(int argc, char* argv[]);

}  // namespace tgemm::test
