#include "cli/app.hpp"

int main(int argc, char** argv) {
    return benchwatch::cli::main(argc, argv);
}
