// tjenew.cc -- C++ allocations with operator new under jemalloc's heap profiler. jemalloc's
// operator new jumps to a static newImpl that no exported symbol names in the stripped
// libjemalloc.so.2: pprof/jeprof name it after the nearest export before it.
//
//   MALLOC_CONF=prof:true,lg_prof_sample:10 ./tjenew OUT
#include <jemalloc/jemalloc.h>
#include <stdio.h>

#include <map>
#include <string>
#include <vector>

namespace tjenew {

__attribute__((noinline)) std::vector<std::string>* make_names(int n) {
    auto* v = new std::vector<std::string>;
    for (int i = 0; i < n; i++) v->push_back(std::string(200, static_cast<char>('a' + i % 26)));
    return v;
}

__attribute__((noinline)) std::map<int, double*>* make_table(int n) {
    auto* m = new std::map<int, double*>;
    for (int i = 0; i < n; i++) (*m)[i] = new double[64];
    return m;
}

}  // namespace tjenew

int main(int argc, char** argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: tjenew OUT\n");
        return 2;
    }
    auto* names = tjenew::make_names(3000);
    auto* table = tjenew::make_table(2000);
    const char* out = argv[1];
    if (mallctl("prof.dump", nullptr, nullptr, &out, sizeof out) != 0) {
        fprintf(stderr, "prof.dump failed (run with MALLOC_CONF=prof:true)\n");
        return 1;
    }
    printf("%zu names, %zu table rows\n", names->size(), table->size());
    return 0;
}
