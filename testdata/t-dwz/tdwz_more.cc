// t-dwz: the program's second unit. Its copy of the header's entries (also in tdwz.cc's
// unit) is what dwz moves into a partial unit of the program itself, with this unit's
// line table.
#include <string>

#include "tdwz.h"

namespace tdwz {

__attribute__((noinline)) Table* fill_program_table(int rows) {
    auto* t = new Table;
    for (int i = 0; i < rows; i++) t->put("prog-" + std::to_string(i * 3), 8 + i % 32);
    return t;
}

}  // namespace tdwz
