// tl_plugin.cpp - a C++ plugin with a thread_local object whose destructor runs code of the
// plugin (issue 40): the host counts the destructor's runs.
extern "C" int tl_dtor_runs;

struct Counted {
    int v = 5;
    ~Counted() { tl_dtor_runs++; v = 0; }
};

static thread_local Counted tl;

extern "C" int plugin_use(void) { return tl.v; }
