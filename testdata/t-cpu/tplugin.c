/* tplugin.c -- libtplugin.so, loaded with dlopen() by tcpu (testdata/t-cpu). */
#include <math.h>

__attribute__((noinline)) static double tplugin_force(double x, double y)
{
    double r = sqrt(x * x + y * y) + 1e-3;
    return sin(x) * cos(y) / r;
}

/* A toy particle integration: exported, looked up with dlsym("tplugin_simulate"). */
double tplugin_simulate(int steps)
{
    double x = 0.5, y = -0.25, vx = 0.01, vy = 0.02, e = 0.0;
    for (int i = 0; i < steps; i++) {
        double f = tplugin_force(x, y);
        vx += f * 1e-3;
        vy -= f * 2e-3;
        x += vx;
        y += vy;
        if (x > 10 || x < -10) vx = -vx;
        if (y > 10 || y < -10) vy = -vy;
        e += f;
    }
    return e;
}
