#include "tmpl.h"
int unit_b(int n)
{
    Acc<int> a;
    Acc<double> d;
    for (int i = 0; i < n; i++) { a.add(i + shared_counter()); d.add(i * 0.5); }
    std::map<std::string, int> m{{"b", a.sum()}, {"d", (int)d.sum()}};
    return (int)describe(m).size() + a.sum();
}
