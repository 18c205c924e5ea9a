// ffi_module.cc - a tvm-ffi Module whose answers come from objrt (ffi_module_cxx.h says
// why this one part is C++). Built only against tvm-ffi's headers, into
// libobjrt_tvm_ffi.so, linked with libtvm_ffi; libobjrt opens it when tvm-ffi asks objrt
// to load a file (ffi_loader.c).
#include <tvm/ffi/extra/module.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/string.h>

#include "ffi_module_cxx.h"

namespace {

using tvm::ffi::Function;
using tvm::ffi::Optional;
using tvm::ffi::String;

class ObjrtModuleObj final : public tvm::ffi::ModuleObj {
 public:
  ObjrtModuleObj(void* self, const objrt_ffi_module_ops* ops) : self_(self), ops_(ops) {}
  // The last reference to the Module is gone: so is the unit (ops_->release unloads it).
  ~ObjrtModuleObj() { ops_->release(self_); }

  const char* kind() const final { return ops_->kind; }
  int GetPropertyMask() const final { return tvm::ffi::Module::kRunnable; }

  Optional<Function> GetFunction(const String& name) final {
    void* f = nullptr;
    int rc = ops_->get_function(self_, Handle(), name.c_str(), &f);
    TVM_FFI_CHECK_SAFE_CALL(rc < 0 ? -1 : 0);
    if (rc == 0 || f == nullptr) return std::nullopt;
    return Function(tvm::ffi::details::ObjectUnsafe::ObjectPtrFromOwned<tvm::ffi::FunctionObj>(
        static_cast<TVMFFIObject*>(f)));
  }

  // TVM_FFI_DLL_EXPORT_TYPED_FUNC's companions, as tvm-ffi's library module reads them.
  Optional<String> GetFunctionDoc(const String& name) final { return Text("__tvm_ffi__doc_", name); }
  Optional<String> GetFunctionMetadata(const String& name) final {
    return Text("__tvm_ffi__metadata_", name);
  }

 private:
  // The Module as C sees it: the header inside the object (after the vtable pointer).
  void* Handle() { return reinterpret_cast<TVMFFIObject*>(static_cast<tvm::ffi::Object*>(this)); }

  Optional<String> Text(const char* prefix, const String& name) {
    std::string sym = std::string(prefix) + name.c_str();
    void* getter = ops_->symbol(self_, sym.c_str());
    if (getter == nullptr) return std::nullopt;
    return Function::InvokeExternC(nullptr, reinterpret_cast<TVMFFISafeCallType>(getter))
        .cast<String>();
  }

  void* self_;
  const objrt_ffi_module_ops* ops_;
};

}  // namespace

extern "C" __attribute__((visibility("default"))) int objrt_ffi_module_new(
    void* self, const objrt_ffi_module_ops* ops, void** out) {
  TVM_FFI_SAFE_CALL_BEGIN();
  auto m = tvm::ffi::make_object<ObjrtModuleObj>(self, ops);
  *out = tvm::ffi::details::ObjectUnsafe::MoveObjectPtrToTVMFFIObjectPtr(std::move(m));
  TVM_FFI_SAFE_CALL_END();
}
