// theap.cc -- heap-profile test program for rpprof (testdata/t-heap).
//
// A small "document store": records keyed by number or by name (an
// overloaded pair), a recursive index tree, shapes rendered through a virtual
// call, and a class template that hands out typed slabs.  Part of everything
// is kept forever, so successive heap dumps grow.
//
//   theap dumps             run under HEAPPROFILE (three dumps)
//   theap sample OUT GROWTH same work in a std::thread, then write the
//                           GetHeapSample / GetHeapGrowthStacks texts
#include <gperftools/malloc_extension.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace tdata {
namespace store {

// Copies a byte string into a fresh malloc'ed buffer.  static inline: at -O2
// gcc inlines it into every caller, so its malloc call site is an inline frame.
static inline char* copy_bytes(const char* src, size_t n) {
    char* p = static_cast<char*>(malloc(n + 1));
    memcpy(p, src, n);
    p[n] = '\0';
    return p;
}

struct Record {
    long key;
    char* label;
    size_t size;
};

// Overloaded pair: a record made from a number, and one made from a name.
__attribute__((noinline)) Record* make_record(long key) {
    Record* r = new Record;
    char tmp[48];
    int n = snprintf(tmp, sizeof tmp, "record-%08ld", key);
    r->key = key;
    r->label = copy_bytes(tmp, (size_t)n);
    r->size = (size_t)n;
    return r;
}

__attribute__((noinline)) Record* make_record(const char* name) {
    Record* r = new Record;
    size_t n = strlen(name);
    r->key = (long)n;
    r->label = copy_bytes(name, n);
    r->size = n;
    return r;
}

void drop_record(Record* r) {
    free(r->label);
    delete r;
}

// Class template: a slab allocator handing out arrays of T; slabs are kept.
template <typename T>
class Slab {
  public:
    __attribute__((noinline)) T* take(size_t n) {
        T* block = new T[n];
        blocks_.push_back(block);
        return block;
    }
    size_t count() const { return blocks_.size(); }

  private:
    std::vector<T*> blocks_;
};

}  // namespace store

namespace index {

struct Node {
    Node* left;
    Node* right;
    char* tag;
    int depth;
};

// Recursive: builds a complete binary tree, one tag string per node.
__attribute__((noinline)) Node* grow(int depth, long seed) {
    Node* n = new Node;
    char tmp[32];
    int len = snprintf(tmp, sizeof tmp, "n%d.%ld", depth, seed);
    n->tag = store::copy_bytes(tmp, (size_t)len);
    n->depth = depth;
    n->left = depth > 0 ? grow(depth - 1, seed * 2) : nullptr;
    n->right = depth > 0 ? grow(depth - 1, seed * 2 + 1) : nullptr;
    return n;
}

__attribute__((noinline)) void prune(Node* n) {
    if (!n) return;
    prune(n->left);
    prune(n->right);
    free(n->tag);
    delete n;
}

}  // namespace index

namespace render {

class Shape {
  public:
    virtual ~Shape() {}
    virtual unsigned char* raster(int scale) const = 0;
};

class Square : public Shape {
  public:
    __attribute__((noinline)) unsigned char* raster(int scale) const override {
        size_t n = (size_t)scale * (size_t)scale;
        unsigned char* px = static_cast<unsigned char*>(malloc(n));
        memset(px, 0xff, n);
        return px;
    }
};

class Ring : public Shape {
  public:
    __attribute__((noinline)) unsigned char* raster(int scale) const override {
        size_t n = (size_t)scale * 24;
        unsigned char* px = static_cast<unsigned char*>(calloc(n, 1));
        return px;
    }
};

// The virtual call: which raster() runs depends on the shape picked at run time.
__attribute__((noinline)) unsigned char* paint(const Shape& s, int scale) {
    return s.raster(scale);
}

}  // namespace render
}  // namespace tdata

using namespace tdata;

struct Pair {
    double x, y;
};

static std::vector<store::Record*> g_kept;
static std::vector<index::Node*> g_forest;
static std::vector<unsigned char*> g_pictures;
static store::Slab<double> g_doubles;
static store::Slab<Pair> g_pairs;

__attribute__((noinline)) static void one_round(long round, const render::Shape* const* shapes) {
    // records: by number (2 of 3 freed again) and by name (kept)
    for (long i = 0; i < 40; i++) {
        store::Record* r = store::make_record(round * 1000 + i);
        if (i % 3 == 0)
            g_kept.push_back(r);
        else
            store::drop_record(r);
    }
    std::string name = "customer/" + std::to_string(round) + "/profile-name";
    for (int i = 0; i < 6; i++) {
        name += "-x";
        g_kept.push_back(store::make_record(name.c_str()));
    }
    // index tree: keep every 8th tree
    index::Node* t = index::grow(5, round);
    if (round % 8 == 0)
        g_forest.push_back(t);
    else
        index::prune(t);
    // pictures: a window of 64 kept, the rest freed
    unsigned char* px = render::paint(*shapes[round % 3 == 0], 40 + (int)(round % 50));
    g_pictures.push_back(px);
    if (g_pictures.size() > 64) {
        free(g_pictures.front());
        g_pictures.erase(g_pictures.begin());
    }
    // slabs: kept forever
    if (round % 4 == 0) g_doubles.take(512);
    if (round % 6 == 0) g_pairs.take(300);
}

static int write_text(const char* path, const std::string& s) {
    FILE* f = fopen(path, "w");
    if (!f) {
        perror(path);
        return 1;
    }
    fwrite(s.data(), 1, s.size(), f);
    fclose(f);
    return 0;
}

int main(int argc, char** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s dumps | sample OUT GROWTH\n", argv[0]);
        return 2;
    }
    const bool sample = strcmp(argv[1], "sample") == 0;
    long rounds = 900;
    render::Square sq;
    render::Ring ring;
    const render::Shape* shapes[2] = {&sq, &ring};
    auto work = [&] {
        for (long r = 0; r < rounds; r++) one_round(r, shapes);
    };
    if (sample) {
        // tcmalloc 2.10 never samples the main thread's allocations (its
        // sampler is set up before TCMALLOC_SAMPLE_PARAMETER is read), so
        // the sampled run does its work in a second thread.
        std::thread worker(work);
        worker.join();
    } else {
        work();
    }
    printf("rounds=%ld kept=%zu trees=%zu pictures=%zu slabs=%zu+%zu\n", rounds, g_kept.size(),
           g_forest.size(), g_pictures.size(), g_doubles.count(), g_pairs.count());
    if (sample) {
        if (argc < 4) return 2;
        std::string heap, growth;
        MallocExtension::instance()->GetHeapSample(&heap);
        MallocExtension::instance()->GetHeapGrowthStacks(&growth);
        if (write_text(argv[2], heap) || write_text(argv[3], growth)) return 1;
        printf("heap sample %zu bytes, growth %zu bytes\n", heap.size(), growth.size());
    }
    return 0;
}
