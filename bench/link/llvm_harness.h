// llvm_harness.h - what both LLVM link harnesses share (rtdyld_link.cpp, jitlink_link.cpp):
// their command line, reading the inputs before any timing, the timed rounds and the report,
// and the check that the last link's code works. Only the link and its teardown differ, so
// the two tools' numbers are taken and printed the same way.
#ifndef BENCH_LINK_LLVM_HARNESS_H
#define BENCH_LINK_LLVM_HARNESS_H

#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>

#include <dlfcn.h>
#include <time.h>

#include "check.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
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

struct Input {
    std::string path;
    std::unique_ptr<llvm::MemoryBuffer> buf;
};

// One run of a harness: `tool` is its name in messages ("rtdyld_link"), `label` the first
// word of its output lines ("rtdyld").
struct Run {
    const char *tool, *label;
    int reps = 30;
    double budget_s = 20;
    std::string what = "none";
    const char *samples_path = nullptr;
    std::vector<Input> inputs;
    size_t bytes = 0;
};

// The command line, `[-r REPS] [-t SECONDS] [-c CHECK] [-s SAMPLES_FILE] FILE.o...`, every
// file read into memory, LLVM's native target initialized and libm loaded RTLD_GLOBAL (for
// the host fallback of symbol lookups). Returns 0, or the exit status after a message.
inline int setup(Run &run, int argc, char **argv)
{
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!std::strcmp(argv[i], "-r") && i + 1 < argc)
            run.reps = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "-t") && i + 1 < argc)
            run.budget_s = std::atof(argv[++i]);
        else if (!std::strcmp(argv[i], "-c") && i + 1 < argc)
            run.what = argv[++i];
        else if (!std::strcmp(argv[i], "-s") && i + 1 < argc)
            run.samples_path = argv[++i];
        else {
            std::fprintf(stderr, "usage: %s [-r REPS] [-t SECONDS] [-c sqlite|lua|jit|crypto|none] "
                         "[-s SAMPLES_FILE] FILE.o...\n", argv[0]);
            return 2;
        }
    }
    if (i == argc) {
        std::fprintf(stderr, "%s: no input files\n", run.tool);
        return 2;
    }
    llvm::InitializeNativeTarget();
    if (!dlopen("libm.so.6", RTLD_NOW | RTLD_GLOBAL)) {
        std::fprintf(stderr, "%s: dlopen libm: %s\n", run.tool, dlerror());
        return 1;
    }
    for (; i < argc; i++) {
        auto buf = llvm::MemoryBuffer::getFile(argv[i]);
        if (!buf) {
            std::fprintf(stderr, "%s: %s: %s\n", run.tool, argv[i], buf.getError().message().c_str());
            return 1;
        }
        run.bytes += (*buf)->getBufferSize();
        run.inputs.push_back({argv[i], std::move(*buf)});
    }
    return 0;
}

// A link refused: "LABEL refused=..." on stdout (one line, the linker's own words, for
// run.sh's table) and the message on stderr.
inline int refused(const Run &run, std::string error)
{
    std::replace(error.begin(), error.end(), '\n', ' ');
    std::printf("%s refused=\"%s\"\n", run.label, error.c_str());
    std::fprintf(stderr, "%s: link failed: %s\n", run.tool, error.c_str());
    return 1;
}

// The timed rounds, then one more link whose code is called (check.c): `link(img)` links
// every input into a fresh Image and returns false with img.error set; `teardown(img)`
// gives everything back; `lookup` finds a linked function for the check. At least 5
// rounds, then as many of `reps` as the time budget allows. Returns the exit status.
template <class Image, class Link, class Teardown>
int time_links(const Run &run, Link link, Teardown teardown, void *(*lookup)(void *, const char *))
{
    std::vector<double> link_us, total_us, link_cpu;
    auto start = Clock::now();
    for (int r = 0; r < run.reps; r++) {
        Image img;
        double c0 = cpu_us();
        auto t0 = Clock::now();
        bool ok = link(img);
        double l = us_since(t0);
        double c = cpu_us() - c0;
        std::string error = img.error;
        teardown(img);
        double t = us_since(t0);
        if (!ok)
            return refused(run, error);
        link_us.push_back(l);
        link_cpu.push_back(c);
        total_us.push_back(t);
        if (r >= 4 && std::chrono::duration<double>(Clock::now() - start).count() > run.budget_s)
            break;                              // enough samples within the time budget
    }
    if (run.samples_path) {                     // raw samples, appended: "wall_us cpu_us"
        if (FILE *f = std::fopen(run.samples_path, "a")) {
            for (size_t k = 0; k < link_us.size(); k++)
                std::fprintf(f, "%.1f %.1f\n", link_us[k], link_cpu[k]);
            std::fclose(f);
        }
    }
    std::string label = run.label;
    report((label + " link").c_str(), link_us);
    report((label + " link+teardown").c_str(), total_us);
    report((label + " link-cpu").c_str(), link_cpu);

    Image img;
    if (!link(img)) {
        std::fprintf(stderr, "%s: link failed: %s\n", run.tool, img.error.c_str());
        return 1;
    }
    bool ok = bench_check(run.what.c_str(), lookup, &img) == 0;
    teardown(img);
    return ok ? 0 : 1;
}

} // namespace bench
#endif
