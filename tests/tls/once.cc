// std::call_once reaches libstdc++'s own thread-locals (__once_callable, __once_call)
// through initial-exec GOT entries: a TLS reference to a symbol the host's libstdc++.so
// defines. Threads race on one flag; exactly one initialiser must run.
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

static std::once_flag flag;
static int inits;

int main()
{
    std::vector<std::thread> v;
    for (int i = 0; i < 4; i++)
        v.emplace_back([i] { std::call_once(flag, [i] { inits += 1 + 0 * i; }); });
    for (auto &t : v)
        t.join();
    std::call_once(flag, [] { inits += 100; });
    std::printf("inits=%d\n", inits);
    return inits == 1 ? 0 : 1;
}
