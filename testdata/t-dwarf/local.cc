// A member function of a local class is declared in the class, whose entry GCC puts among
// the entries of the function that defines it (outer); here it is inlined into another
// function (apply). Asked for apply's addresses alone, rpprof skips outer's entries and
// must read them back for the class's name, which qualifies the inlined frame. twice's
// first entry is a class: the next one is not in it.
#include <cstdio>
#include <cstdlib>

int outer(int n);
int twice();

int main(int argc, char** argv) {
    std::printf("%d %d\n", outer(argc > 1 ? std::atoi(argv[1]) : 2), twice());
    return 0;
}

template <class F>
__attribute__((noinline)) int apply(F f, int x) {
    return f(x) + 1;
}

__attribute__((noinline)) int outer(int n) {
    struct Scaler {
        int n;
        int operator()(int x) const { return x * x * n; }
    };
    return apply(Scaler{n}, n) + n;
}

__attribute__((noinline)) int twice() {
    struct First {
        int operator()(int x) const {
            int s = 0;
            for (int i = 0; i < x; i++) s += i ^ x;
            return s;
        }
    };
    struct Second {
        int operator()(int x) const {
            int s = 1;
            for (int i = 0; i < x; i++) s = s * 3 + i;
            return s;
        }
    };
    return apply(First{}, 5) + apply(Second{}, 6);
}
