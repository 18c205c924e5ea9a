"""Finding libobjrt.so and declaring the C API (include/objrt.h) for ctypes."""
import ctypes
import os
import stat

_HERE = os.path.dirname(os.path.abspath(__file__))


def _candidates():
    env = os.environ.get("OBJRT_LIBRARY")
    if env:
        return [env]                        # an explicit choice is never second-guessed
    out = []
    try:
        from . import _installed            # written by `make install`
        out.append(_installed.LIBRARY)
    except ImportError:
        pass
    # The library a wheel built from a checkout carries (python/_build/objrt_build.py)
    out.append(os.path.join(_HERE, "libobjrt.so.0"))
    # Running from a checkout: python/objrt/ -> <repo>/build/libobjrt.so
    out.append(os.path.join(_HERE, "..", "..", "build", "libobjrt.so"))
    out.append("libobjrt.so.0")             # installed (make install): by its soname
    return out


def _not_regular(path):
    """Why a path is not a library to open, or None. Only a regular file is opened, as the
    C side opens every input and every path its environment names (src/base/regular.c):
    dlopen of a FIFO waits for a writer forever."""
    try:
        mode = os.stat(path).st_mode
    except OSError as e:
        return "%s: %s" % (os.path.normpath(path), e.strerror.lower())
    return None if stat.S_ISREG(mode) else "%s: not a regular file" % os.path.normpath(path)


def _open():
    errors = []
    env = os.environ.get("OBJRT_LIBRARY")
    for path in _candidates():
        why = _not_regular(path) if os.sep in path else None
        if why and env:
            raise ImportError("objrt: OBJRT_LIBRARY " + why + " (it names the libobjrt.so "
                              "to load; unset it to use the installed one)")
        if why:
            errors.append(why)
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            errors.append(str(e))
    raise ImportError("objrt: cannot load libobjrt.so: this package carries none (built "
                      "outside a checkout), none is installed (libobjrt.so.0 on the dynamic "
                      "linker's path: `make install`), and OBJRT_LIBRARY is not set; tried: "
                      + "; ".join(errors))


lib, path = _open()

c_p = ctypes.c_void_p


class Input(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("data", c_p), ("size", ctypes.c_size_t)]


class CStats(ctypes.Structure):
    _fields_ = [("link_us", ctypes.c_double), ("objects", ctypes.c_size_t),
                ("relocations", ctypes.c_size_t), ("reserved_bytes", ctypes.c_size_t),
                ("used_bytes", ctypes.c_size_t), ("got_slots", ctypes.c_size_t),
                ("stubs", ctypes.c_size_t), ("stubs_used", ctypes.c_size_t),
                ("comdat_groups_dropped", ctypes.c_size_t),
                ("comdat_bytes_dropped", ctypes.c_size_t), ("packed", ctypes.c_size_t)]


class CMemory(ctypes.Structure):
    _fields_ = [("arena_blocks", ctypes.c_size_t), ("arena_reserved_bytes", ctypes.c_size_t),
                ("arena_page_bytes", ctypes.c_size_t), ("arena_chunk_bytes", ctypes.c_size_t),
                ("spare_reservations", ctypes.c_size_t), ("spare_bytes", ctypes.c_size_t)]


class CLocation(ctypes.Structure):
    _fields_ = [("unit", c_p), ("object", ctypes.c_char_p), ("file", ctypes.c_char_p),
                ("member", ctypes.c_char_p), ("section", ctypes.c_char_p),
                ("section_addr", c_p), ("symbol", ctypes.c_char_p), ("symbol_addr", c_p),
                ("symbol_size", ctypes.c_size_t), ("offset", ctypes.c_size_t),
                ("local", ctypes.c_int)]


class Options(ctypes.Structure):
    _fields_ = [("page_size", ctypes.c_size_t), ("no_constructors", ctypes.c_int),
                ("earlier_wins", ctypes.c_int), ("pack_small", ctypes.c_int),
                ("no_reuse", ctypes.c_int)]


RESOLVER = ctypes.CFUNCTYPE(c_p, c_p, ctypes.c_char_p)


def _decl(name, restype, *argtypes):
    fn = getattr(lib, name)
    fn.restype = restype
    fn.argtypes = argtypes
    return fn


objrt_new = _decl("objrt_new", c_p)
objrt_free = _decl("objrt_free", None, c_p)
objrt_load = _decl("objrt_load", c_p, c_p, ctypes.POINTER(ctypes.c_char_p), ctypes.c_size_t)
objrt_load_memory = _decl("objrt_load_memory", c_p, c_p, ctypes.POINTER(Input), ctypes.c_size_t)
objrt_sym = _decl("objrt_sym", c_p, c_p, ctypes.c_char_p)
objrt_unit_sym = _decl("objrt_unit_sym", c_p, c_p, ctypes.c_char_p)
objrt_define = _decl("objrt_define", ctypes.c_int, c_p, ctypes.c_char_p, c_p)
objrt_add_library = _decl("objrt_add_library", ctypes.c_int, c_p, ctypes.c_char_p)
objrt_set_resolver = _decl("objrt_set_resolver", ctypes.c_int, c_p, RESOLVER, c_p)
objrt_unload = _decl("objrt_unload", ctypes.c_int, c_p)
objrt_unit_dependants = _decl("objrt_unit_dependants", ctypes.c_size_t, c_p)
objrt_error = _decl("objrt_error", ctypes.c_char_p, c_p)
objrt_memory_usage = _decl("objrt_memory_usage", ctypes.c_int, c_p, ctypes.POINTER(CMemory))
objrt_unit_stats = _decl("objrt_unit_stats", ctypes.c_int, c_p, ctypes.POINTER(CStats))
objrt_addr_info = _decl("objrt_addr_info", ctypes.c_int, c_p, c_p, ctypes.POINTER(CLocation))
objrt_set_options = _decl("objrt_set_options", ctypes.c_int, c_p, ctypes.POINTER(Options))
