// Lambdas inlined into another function. GCC gives a lambda's call operator no linkage
// name, so its inlined copies are named from DWARF: the closure type has no name either,
// and rpprof names it after the function it is declared in, numbered as GCC numbers a
// function's lambdas: in the order they are written, whatever their parameters, as the
// out-of-line instances of `call` show in their own names (`call<ns::tf(int)::{lambda(long)#2}>`).
// - b, in a block, is #2, though GCC writes its entry after those of the function's own;
// - c declares a lambda, numbered #1 in c's call operator;
// - d's default argument is a lambda, numbered #5 in tf (its entry is inside d's class);
// - u is a hand-written class without a name, which takes no number.
#include <cstdio>
#include <cstdlib>

template <class F>
__attribute__((noinline)) int call(F f, int x) {
    return f(x) + 1;
}

namespace ns {
__attribute__((noinline)) int tf(int t) {
    struct {
        int q;
        int operator()(int x) const { return x * 5 - q; }
    } u{t};
    auto a = [t](int x) { return x * x + t; };
    int r = 0;
    if (t > 1) {
        auto b = [t](long x) { return static_cast<int>(x % 7) - t; };
        r += call(b, t + 1);
    }
    auto c = [t](int x) {
        auto in = [x](int y) { return x * y + (y >> 2); };
        return call(in, x + t) + t;
    };
    auto d = [](int x, int (*g)(int) = [](int y) { return y * 3 + 1; }) { return g(x) ^ x; };
    return call(a, t) + r + call(c, t + 2) + call(d, t) + call(u, t);
}
}  // namespace ns

int main(int argc, char** argv) {
    std::printf("%d\n", ns::tf(argc > 1 ? std::atoi(argv[1]) : 3));
    return 0;
}
