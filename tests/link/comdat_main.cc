#include <cstdio>
#include <stdexcept>
#include "tmpl.h"
int main()
{
    int a = unit_a(10), b = unit_b(7);
    std::map<std::string, int> m{{"main", a + b}};
    std::printf("%d %d %s calls=%d\n", a, b, describe(m).c_str(), shared_counter());
    try {
        std::vector<int> v(3);
        (void)v.at(5);
    } catch (const std::out_of_range &) {
        std::printf("caught\n");
    }
    return shared_counter() == 19 ? 0 : 3;
}
