#include "tmpl.h"
int unit_a(int n)
{
    Acc<int> a;
    for (int i = 0; i < n; i++) a.add(i * shared_counter());
    std::map<std::string, int> m{{"a", a.sum()}};
    return (int)describe(m).size() + a.sum();
}
