// C++ thread_local objects with constructors and destructors (run at each thread's exit
// through __cxa_thread_atexit_impl), compared with the native link.
#include <algorithm>
#include <cstdio>
#include <string>
#include <thread>
#include <mutex>
#include <vector>
static std::mutex m;
static std::vector<std::string> log_;
struct Tracker {
    std::string name;
    Tracker() : name("t") {}
    ~Tracker() { std::lock_guard<std::mutex> g(m); log_.push_back("dtor " + name); }
};
thread_local Tracker tr;
thread_local int calls = 0;
int main() {
    std::vector<std::thread> v;
    for (int i = 0; i < 3; i++) v.emplace_back([i]{ tr.name = "w" + std::to_string(i); calls += i; });
    for (auto &t : v) t.join();
    std::sort(log_.begin(), log_.end());
    for (auto &s : log_) std::printf("%s\n", s.c_str());
    std::printf("main calls=%d name=%s\n", calls, tr.name.c_str());
}
