// t-dwz: a program (two units) and a shared library that share a header of inline
// functions, for a heap profile whose inline frames are named by entries that `dwz -m`
// moved into the common file (see README.md). The tables stay allocated: the dump at exit
// holds them.
#include <cstdio>
#include <cstdlib>

#include "tdwz.h"

namespace tdwz {
Table* fill_program_table(int rows);
}

tdwz::Table* keep[3];

int main(int argc, char** argv) {
    int rows = argc > 1 ? std::atoi(argv[1]) : 4000;
    keep[0] = tdwz::fill_program_table(rows);
    keep[1] = tdwz::fill_library_table(rows);
    // The header's inline functions in this unit too.
    keep[2] = new tdwz::Table;
    for (int i = 0; i < rows / 4; i++) keep[2]->put("main-" + std::to_string(i), 4 + i % 8);
    std::printf("%ld %ld %zu\n", tdwz::checksum(*keep[0]), tdwz::checksum(*keep[1]),
                keep[2]->size());
    return 0;
}
