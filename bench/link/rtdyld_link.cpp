// rtdyld_link.cpp - time linking N relocatable objects in-process with LLVM 14 RuntimeDyld.
//
// usage: rtdyld_link [-r REPS] [-t SECONDS] [-c sqlite|lua|jit|none] [-s SAMPLES_FILE] FILE.o...
//
// Protocol (mirrors objrt_link.c so the numbers compare):
//   * every file is read into memory before timing starts;
//   * one repetition = parse each buffer as an ObjectFile, loadObject() it into ONE fresh
//     RuntimeDyld with a fresh SectionMemoryManager, resolveRelocations(),
//     registerEHFrames() (objrt registers .eh_frame too), finalizeMemory() (page
//     permissions) -> "link" time; then deregisterEHFrames() and destroy -> "teardown";
//   * undefined symbols resolve to the other loaded objects first (RuntimeDyld's own
//     global table, also consulted by the resolver), then the host via
//     dlsym(RTLD_DEFAULT) with libm loaded RTLD_GLOBAL, and atexit to the harness's own
//     (dlsym cannot find it; objrt supplies it the same way);
//   * after timing, one more link is made and known functions are looked up and called
//     (-c, see check.c) to prove the linked code works.
// Wall time (steady_clock) and process CPU time (CLOCK_PROCESS_CPUTIME_ID, less disturbed
// by other load on a busy machine) are both reported.
// Output: one "key=value ..." line per measurement, parsed by bench/link/run.sh.
#include <llvm/ExecutionEngine/JITSymbol.h>
#include <llvm/ExecutionEngine/RuntimeDyld.h>
#include <llvm/ExecutionEngine/SectionMemoryManager.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>

#include <dlfcn.h>

#include "check.h"
#include "llvm_harness.h"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

using bench::Input;

// Resolves against the objects of one RuntimeDyld first, then the host process.
class HostResolver : public llvm::JITSymbolResolver {
public:
    llvm::RuntimeDyld *dyld = nullptr;
    std::string missing;

    void lookup(const LookupSet &symbols, OnResolvedFunction on_resolved) override
    {
        LookupResult result;
        for (llvm::StringRef name : symbols) {
            if (dyld) {
                llvm::JITEvaluatedSymbol s = dyld->getSymbol(name);
                if (s.getAddress()) {
                    result[name] = s;
                    continue;
                }
            }
            void *p = dlsym(RTLD_DEFAULT, name.str().c_str());
            // glibc keeps atexit in libc_nonshared.a, out of dlsym's reach; libcrypto calls
            // it. objrt supplies it too, so give RuntimeDyld the harness's own (fair setup).
            if (!p && name == "atexit")
                p = reinterpret_cast<void *>(&atexit);
            if (!p) {
                missing = name.str();
                on_resolved(llvm::make_error<llvm::StringError>("undefined symbol '" + missing + "'",
                                                                llvm::inconvertibleErrorCode()));
                return;
            }
            result[name] = llvm::JITEvaluatedSymbol(reinterpret_cast<uintptr_t>(p), llvm::JITSymbolFlags::Exported);
        }
        on_resolved(std::move(result));
    }

    // Weak definitions: this object provides the ones nobody loaded earlier defines.
    llvm::Expected<LookupSet> getResponsibilitySet(const LookupSet &symbols) override
    {
        LookupSet mine;
        for (llvm::StringRef name : symbols)
            if (!dyld || !dyld->getSymbol(name).getAddress())
                mine.insert(name);
        return mine;
    }
};

// One linked image: keeps the memory manager and dyld alive while the code is used.
struct Image {
    std::unique_ptr<llvm::SectionMemoryManager> mm;
    HostResolver resolver;
    std::unique_ptr<llvm::RuntimeDyld> dyld;
    std::string error;
};

bool link_all(const std::vector<Input> &inputs, Image &img)
{
    img.mm = std::make_unique<llvm::SectionMemoryManager>();
    img.dyld = std::make_unique<llvm::RuntimeDyld>(*img.mm, img.resolver);
    img.resolver.dyld = img.dyld.get();
    for (const Input &in : inputs) {
        auto obj = llvm::object::ObjectFile::createObjectFile(in.buf->getMemBufferRef());
        if (!obj) {
            img.error = in.path + ": " + llvm::toString(obj.takeError());
            return false;
        }
        if (!img.dyld->loadObject(**obj)) {
            img.error = in.path + ": " + img.dyld->getErrorString().str();
            return false;
        }
        if (img.dyld->hasError()) {
            img.error = in.path + ": " + img.dyld->getErrorString().str();
            return false;
        }
    }
    img.dyld->resolveRelocations();
    if (img.dyld->hasError()) {
        img.error = "resolveRelocations: " + img.dyld->getErrorString().str();
        return false;
    }
    img.dyld->registerEHFrames();
    std::string err;
    if (img.mm->finalizeMemory(&err)) {
        img.error = "finalizeMemory: " + err;
        return false;
    }
    return true;
}

void teardown(Image &img)
{
    if (img.dyld)
        img.dyld->deregisterEHFrames();
    img.dyld.reset();
    img.mm.reset();
}

void *lookup(void *cookie, const char *name)
{
    auto *img = static_cast<Image *>(cookie);
    return reinterpret_cast<void *>(img->dyld->getSymbol(name).getAddress());
}

} // namespace

int main(int argc, char **argv)
{
    bench::Run run{"rtdyld_link", "rtdyld"};
    if (int status = bench::setup(run, argc, argv))
        return status;
    std::printf("rtdyld inputs=%zu bytes=%zu\n", run.inputs.size(), run.bytes);
    return bench::time_links<Image>(run, [&](Image &img) { return link_all(run.inputs, img); }, teardown, lookup);
}
