// cxx.cc - C++ against tvm-ffi's headers: functions exported with
// TVM_FFI_DLL_EXPORT_TYPED_FUNC, a static initializer that registers a global function and a
// reflection type, exceptions, String/Array/Map/Tuple results. Built as .o (objrt) and .so
// (tvm-ffi's loader) from the same source; VARIANT keeps each build's global and type names
// apart in one process (tvm-ffi's registries are process-wide). The exports carry their
// metadata (type schema) and one a docstring, which a Module reads through its own symbols.
#define TVM_FFI_DLL_EXPORT_INCLUDE_METADATA 1
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/tuple.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/registry.h>
#include <tvm/ffi/string.h>

#include <string>

#ifndef VARIANT
#define VARIANT "plain"
#endif

namespace {

namespace ffi = tvm::ffi;
namespace refl = tvm::ffi::reflection;

class PairObj : public ffi::Object {
 public:
  int64_t a = 0;
  int64_t b = 0;
  PairObj() = default;
  PairObj(int64_t a, int64_t b) : a(a), b(b) {}
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("objrt_test." VARIANT ".Pair", PairObj, ffi::Object);
};

int inits = 0;

TVM_FFI_STATIC_INIT_BLOCK() {
  inits++;
  refl::ObjectDef<PairObj>().def_ro("a", &PairObj::a).def_ro("b", &PairObj::b);
  refl::GlobalDef().def("objrt_test." VARIANT ".triple", [](int64_t x) { return 3 * x; });
}

int64_t AddOne(int64_t x) { return x + 1; }
ffi::String Concat(ffi::String a, ffi::String b) { return std::string(a) + "+" + std::string(b); }
ffi::Array<int64_t> Range(int64_t n) {
  ffi::Array<int64_t> out;
  for (int64_t i = 0; i < n; ++i) out.push_back(i * i);
  return out;
}
ffi::Map<ffi::String, int64_t> Lengths(ffi::Array<ffi::String> words) {
  ffi::Map<ffi::String, int64_t> out;
  for (const ffi::String& w : words) out.Set(w, static_cast<int64_t>(w.size()));
  return out;
}
ffi::Tuple<int64_t, ffi::String> Both(int64_t x) { return ffi::Tuple<int64_t, ffi::String>(x * 2, ffi::String(std::to_string(x))); }
int64_t Throws(int64_t x) {
  if (x < 0) TVM_FFI_THROW(ValueError) << "Throws: negative " << x;
  if (x == 0) throw std::runtime_error("Throws: a std::exception");
  return x;
}
int64_t PairSum(int64_t a, int64_t b) {
  ffi::ObjectRef p(ffi::make_object<PairObj>(a, b));
  const PairObj* o = p.as<PairObj>();
  return o ? o->a + o->b : -1;
}
int64_t Inits() { return inits; }
int64_t CallTriple(int64_t x) {
  auto f = ffi::Function::GetGlobal("objrt_test." VARIANT ".triple");
  return f.has_value() ? (*f)(x).cast<int64_t>() : -1;
}

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_one, AddOne);
TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(add_one, "add_one(x) -> x + 1");
TVM_FFI_DLL_EXPORT_TYPED_FUNC(concat, Concat);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(range, Range);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(lengths, Lengths);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(both, Both);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(throws, Throws);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(pair_sum, PairSum);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(inits, Inits);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(call_triple, CallTriple);
