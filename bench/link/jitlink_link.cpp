// jitlink_link.cpp - time linking N relocatable objects in-process with LLVM 14's JITLink,
// through ORC's ObjectLinkingLayer (what LLJIT uses on Linux since LLVM 17).
//
// usage: jitlink_link [-r REPS] [-t SECONDS] [-c sqlite|lua|jit|crypto|none] [-s SAMPLES_FILE] FILE.o...
//
// Protocol (mirrors objrt_link.c and rtdyld_link.cpp so the numbers compare):
//   * every file is read into memory before timing starts, and the names each object
//     defines are collected then (ORC links an object only when one of its symbols is
//     looked up; looking up all of them makes it link every object, as the others do);
//   * one repetition = a fresh ExecutionSession with an ObjectLinkingLayer over
//     InProcessMemoryManager and an EHFrameRegistrationPlugin (eh_frame registered, as
//     objrt and the RuntimeDyld harness do), one JITDylib that falls back on the host
//     process (DynamicLibrarySearchGenerator, libm loaded RTLD_GLOBAL, atexit given as
//     the harness's own, as the other harnesses do); every buffer added, then one lookup
//     of every defined name, which waits until all are linked and finalized -> "link";
//     endSession() -> "teardown";
//   * after timing, one more link is made and known functions are looked up and called
//     (-c, see check.c) to prove the linked code works.
// Where JITLink refuses an input the harness prints the reason and exits 1; run.sh shows it
// in the table instead of a time.
// Output: one "key=value ..." line per measurement, parsed by bench/link/run.sh.
#include <llvm/ExecutionEngine/JITLink/EHFrameSupport.h>
#include <llvm/ExecutionEngine/JITLink/JITLinkMemoryManager.h>
#include <llvm/ExecutionEngine/Orc/Core.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/ExecutorProcessControl.h>
#include <llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>

#include <dlfcn.h>
#include <time.h>

#include "check.h"
#include "llvm_harness.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace {

using bench::Input;
namespace orc = llvm::orc;

// One linked image: the session owns the memory of everything it linked.
struct Image {
    std::unique_ptr<orc::ExecutionSession> es;
    std::unique_ptr<orc::ObjectLinkingLayer> layer;
    orc::JITDylib *jd = nullptr;
    std::string error;
    std::string cause;                          // the first error JITLink reported
};

// Global names each object defines (weak ones once): what the lookup asks for.
bool defined_names(const std::vector<Input> &inputs, std::vector<std::string> &names)
{
    std::set<std::string> seen;
    for (const Input &in : inputs) {
        auto obj = llvm::object::ObjectFile::createObjectFile(in.buf->getMemBufferRef());
        if (!obj) {
            std::fprintf(stderr, "jitlink_link: %s: %s\n", in.path.c_str(), llvm::toString(obj.takeError()).c_str());
            return false;
        }
        for (const llvm::object::SymbolRef &sym : (*obj)->symbols()) {
            auto flags = sym.getFlags();
            auto name = sym.getName();
            if (!flags || !name) {
                llvm::consumeError(flags.takeError());
                llvm::consumeError(name.takeError());
                continue;
            }
            if (!(*flags & llvm::object::SymbolRef::SF_Global) || (*flags & llvm::object::SymbolRef::SF_Undefined) ||
                (*flags & llvm::object::SymbolRef::SF_Common) || name->empty())
                continue;
            if (seen.insert(name->str()).second)
                names.push_back(name->str());
        }
    }
    return true;
}

bool link_all(const std::vector<Input> &inputs, const std::vector<std::string> &names, Image &img)
{
    auto epc = orc::SelfExecutorProcessControl::Create();
    if (!epc) {
        img.error = llvm::toString(epc.takeError());
        return false;
    }
    img.es = std::make_unique<orc::ExecutionSession>(std::move(*epc));
    // JITLink reports why an object failed here; the lookup only says which names failed.
    Image *self = &img;
    img.es->setErrorReporter([self](llvm::Error err) {
        std::string text = llvm::toString(std::move(err));
        if (self->cause.empty())
            self->cause = text;
    });
    auto mm = llvm::jitlink::InProcessMemoryManager::Create();
    if (!mm) {
        img.error = llvm::toString(mm.takeError());
        return false;
    }
    img.layer = std::make_unique<orc::ObjectLinkingLayer>(*img.es, std::move(*mm));
    img.layer->addPlugin(std::make_unique<orc::EHFrameRegistrationPlugin>(
        *img.es, std::make_unique<llvm::jitlink::InProcessEHFrameRegistrar>()));
    img.jd = &img.es->createBareJITDylib("main");
    auto host = orc::DynamicLibrarySearchGenerator::GetForCurrentProcess('\0');
    if (!host) {
        img.error = llvm::toString(host.takeError());
        return false;
    }
    img.jd->addGenerator(std::move(*host));
    // glibc keeps atexit in libc_nonshared.a, out of dlsym's reach; objrt supplies it too.
    orc::SymbolMap extra;
    extra[img.es->intern("atexit")] = llvm::JITEvaluatedSymbol(
        llvm::pointerToJITTargetAddress(&atexit), llvm::JITSymbolFlags::Exported);
    if (auto err = img.jd->define(orc::absoluteSymbols(std::move(extra)))) {
        img.error = llvm::toString(std::move(err));
        return false;
    }
    for (const Input &in : inputs) {
        if (auto err = img.layer->add(*img.jd, llvm::MemoryBuffer::getMemBuffer(in.buf->getMemBufferRef(), false))) {
            img.error = in.path + ": " + llvm::toString(std::move(err));
            return false;
        }
    }
    orc::SymbolLookupSet want;
    for (const std::string &n : names)
        want.add(img.es->intern(n));
    auto found = img.es->lookup(orc::makeJITDylibSearchOrder(img.jd, orc::JITDylibLookupFlags::MatchAllSymbols),
                                std::move(want));
    if (!found) {
        std::string which = llvm::toString(found.takeError());
        img.error = img.cause.empty() ? which : img.cause;
        return false;
    }
    return true;
}

void teardown(Image &img)
{
    if (img.es)
        if (auto err = img.es->endSession())
            llvm::consumeError(std::move(err));
    img.layer.reset();
    img.es.reset();
}

void *lookup(void *cookie, const char *name)
{
    auto *img = static_cast<Image *>(cookie);
    auto sym = img->es->lookup(orc::makeJITDylibSearchOrder(img->jd, orc::JITDylibLookupFlags::MatchAllSymbols),
                               img->es->intern(name));
    if (!sym) {
        llvm::consumeError(sym.takeError());
        return nullptr;
    }
    return llvm::jitTargetAddressToPointer<void *>(sym->getAddress());
}

} // namespace

int main(int argc, char **argv)
{
    bench::Run run{"jitlink_link", "jitlink"};
    if (int status = bench::setup(run, argc, argv))
        return status;
    std::vector<std::string> names;
    if (!defined_names(run.inputs, names))
        return 1;
    std::printf("jitlink inputs=%zu bytes=%zu names=%zu\n", run.inputs.size(), run.bytes, names.size());
    return bench::time_links<Image>(run, [&](Image &img) { return link_all(run.inputs, names, img); }, teardown,
                                    lookup);
}
