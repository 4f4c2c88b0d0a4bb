// t-split: a program built with -gsplit-dwarf, for a heap profile whose functions and
// inlined frames are in .dwo files (see README.md). What it allocates stays allocated:
// the dump at exit holds it.
#include <cstdio>
#include <cstdlib>

#include "tsplit.h"

tsplit::Index* keep[2];

int main(int argc, char** argv) {
    int n = argc > 1 ? std::atoi(argv[1]) : 3000;
    keep[0] = tsplit::build_index(n);
    keep[1] = new tsplit::Index;
    for (int i = 0; i < n / 3; i++) keep[1]->add("main-" + std::to_string(i), 4 + i % 16);
    std::printf("%zu %zu\n", keep[0]->size(), keep[1]->size());
    return 0;
}
