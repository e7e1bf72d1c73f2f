/* A small program for the series test: NVTX ranges around CPU work that
 * grows with its argument N: "solve" holds 4 "step" ranges, each N "unit"
 * ranges of the same work, so the units count 4 N whatever the machine's
 * load. It fails (exit 1) for the argument 3. */
#include <stdio.h>
#include <stdlib.h>

#include <nvtx3/nvToolsExt.h>

static volatile double sink;

static void work(long units)
{
    double x = 0;
    for (long i = 0; i < units * 1000000; i++)
        x += (double)(i % 7) * 0.5;
    sink = x;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1;
    if (n == 3) {
        fputs("series_workload: 3 is the value that fails\n", stderr);
        return 1;
    }
    nvtxRangePushA("solve");
    for (int step = 0; step < 4; step++) {
        nvtxRangePushA("step");
        for (long unit = 0; unit < n; unit++) {
            nvtxRangePushA("unit");
            work(1);
            nvtxRangePop();
        }
        nvtxRangePop();
    }
    nvtxRangePop();
    return 0;
}
