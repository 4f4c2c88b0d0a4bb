// Lambdas inlined into another function. GCC gives a lambda's call operator no linkage
// name, so its inlined copies are named from DWARF: the closure type has no name either,
// and rpprof names it after the function it is declared in, numbered as GCC numbers a
// function's lambdas in the order they are written (whatever their parameters), as the
// out-of-line instances of `call` show in their own names: `call<ns::tf(int)::{lambda(long)#2}>`.
// The third lambda declares a fourth, numbered in the third's call operator.
#include <cstdio>
#include <cstdlib>

template <class F>
__attribute__((noinline)) int call(F f, int x) {
    return f(x) + 1;
}

namespace ns {
__attribute__((noinline)) int tf(int t) {
    auto a = [t](int x) { return x * x + t; };
    auto b = [t](long x) { return static_cast<int>(x % 7) - t; };
    auto c = [t](int x) {
        auto in = [x](int y) { return x * y + (y >> 2); };
        return call(in, x + t) + t;
    };
    return call(a, t) + call(b, t + 1) + call(c, t + 2);
}
}  // namespace ns

int main(int argc, char** argv) {
    std::printf("%d\n", ns::tf(argc > 1 ? std::atoi(argv[1]) : 3));
    return 0;
}
