// t-split: the program's second unit.
#include "tsplit.h"

namespace tsplit {

__attribute__((noinline)) Index* build_index(int n) {
    auto* ix = new Index;
    for (int i = 0; i < n; i++) ix->add("key-" + std::to_string(i * 5), 16 + i % 48);
    return ix;
}

}  // namespace tsplit
