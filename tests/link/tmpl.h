// tmpl.h - templates and inline functions every unit of the COMDAT fixture instantiates:
// each object carries its own copy in a COMDAT group; a linker keeps one.
#include <string>
#include <vector>
#include <map>

template <typename T> struct Acc {
    std::vector<T> v;
    void add(T x) { v.push_back(x); }
    T sum() const { T s = T(); for (const T &x : v) s += x; return s; }
};

inline int shared_counter()
{
    static int calls;           // one object for the whole program: only if one copy is kept
    return ++calls;
}

inline std::string describe(const std::map<std::string, int> &m)
{
    std::string s;
    for (const auto &kv : m) s += kv.first + "=" + std::to_string(kv.second) + ";";
    return s;
}

int unit_a(int n);
int unit_b(int n);
