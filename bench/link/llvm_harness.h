// llvm_harness.h - the timing and reporting both LLVM link harnesses share (rtdyld_link.cpp,
// jitlink_link.cpp), so their numbers are taken and printed the same way.
#ifndef BENCH_LINK_LLVM_HARNESS_H
#define BENCH_LINK_LLVM_HARNESS_H

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

namespace bench {

using Clock = std::chrono::steady_clock;

// CPU time of the whole process (all threads): robust against other load on the machine.
inline double cpu_us()
{
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

inline double us_since(Clock::time_point t0)
{
    return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

// "WHAT reps=N min_us= median_us= max_us=", the line bench/link/run.sh parses.
inline void report(const char *what, std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    double median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    std::printf("%s reps=%zu min_us=%.1f median_us=%.1f max_us=%.1f\n", what, n, v[0], median, v[n - 1]);
}

} // namespace bench
#endif
