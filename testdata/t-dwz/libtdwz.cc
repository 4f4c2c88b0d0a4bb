// The library's half of t-dwz: fills a table through the header's inline functions.
#include "tdwz.h"

namespace tdwz {

__attribute__((noinline)) Table* fill_library_table(int rows) {
    Table* t = new Table;
    for (int i = 0; i < rows; i++) t->put("lib-" + std::to_string(i), 16 + i % 64);
    return t;
}

long checksum(const Table& t) { return static_cast<long>(t.size()); }

}  // namespace tdwz
