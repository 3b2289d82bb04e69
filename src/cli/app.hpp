#pragma once

namespace benchwatch::cli {

// Runs the command line; returns the process exit code (0 ok, 1 regression with
// --fail-on-regression, 2 bad usage or input).
int main(int argc, char** argv);

}  // namespace benchwatch::cli
