"""objrt's own PEP 517 build backend: `pip install ./python` with nothing to download.

setuptools' backend is a build requirement that pip's build isolation fetches from the
index, which an offline machine does not have. This backend needs only the standard
library, so its requirements are empty and the isolated build works offline.

The wheel holds the package and, built from a checkout, libobjrt.so itself (as llvmlite
ships its own library): the backend runs `make` in the repository for build/libobjrt.so
and copies it in as objrt/libobjrt.so.0, so the installed package works without
OBJRT_LIBRARY. Outside a checkout (no ../Makefile) the wheel is pure Python and the
package finds an installed libobjrt by its soname (libobjrt.so.0, `make install`).
OBJRT_PY_NO_LIBRARY=1 asks for that pure wheel from a checkout too.
"""
import base64
import hashlib
import os
import subprocess
import sys
import sysconfig
import zipfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))    # python/
ROOT = os.path.dirname(HERE)                                           # the repository
SONAME = "libobjrt.so.0"


def _project():
    import tomllib                       # Python 3.11; the package needs >= 3.9 at run time
    with open(os.path.join(HERE, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)["project"]


def _version():
    scope = {}
    with open(os.path.join(HERE, "objrt", "_version.py")) as f:
        exec(f.read(), scope)
    return scope["__version__"]


# What `make build/libobjrt.so` needs on Debian (scripts/install-deps.sh --build's list).
BUILD_PACKAGES = ("gcc", "make", "libc6-dev", "libjansson-dev", "libdlpack-dev", "libdw-dev",
                  "zlib1g-dev")


def _library():
    """The built libobjrt.so (make runs first), or None for a pure wheel."""
    if os.environ.get("OBJRT_PY_NO_LIBRARY") == "1" or \
            not os.path.exists(os.path.join(ROOT, "Makefile")):
        return None
    make = ["make", "-C", ROOT, "--no-print-directory", "-j2", "build/libobjrt.so"]
    r = subprocess.run(make, stdout=sys.stderr, stderr=sys.stderr)
    if r.returncode:
        # Package names that exist on Debian 12, 13 and sid alike (68-install checks them
        # with apt in each release's root): the hint must work where the build ran.
        raise RuntimeError("objrt: `%s` failed (exit %d); install the build dependencies: "
                           "`sudo apt-get install %s` (or scripts/install-deps.sh --build), "
                           "or set OBJRT_PY_NO_LIBRARY=1 to use an installed libobjrt.so.0"
                           % (" ".join(make), r.returncode, " ".join(BUILD_PACKAGES)))
    return os.path.realpath(os.path.join(ROOT, "build", "libobjrt.so"))


def _files(lib):
    """(path in the wheel, bytes) of everything the package installs."""
    out = []
    pkg = os.path.join(HERE, "objrt")
    for d, dirs, names in os.walk(pkg):
        dirs[:] = sorted(x for x in dirs if x != "__pycache__")
        for n in sorted(names):
            if n.endswith(".py") or n == "py.typed":
                p = os.path.join(d, n)
                with open(p, "rb") as f:
                    out.append((os.path.relpath(p, HERE), f.read()))
    if lib:
        with open(lib, "rb") as f:
            out.append(("objrt/" + SONAME, f.read()))
    # OBJRT_NUMBA=1 enables objrt.numba in any Python process (site.py runs .pth lines).
    with open(os.path.join(HERE, "objrt-numba.pth"), "rb") as f:
        out.append(("objrt-numba.pth", f.read()))
    return out


def _metadata(proj, version):
    lines = ["Metadata-Version: 2.1", "Name: " + proj["name"], "Version: " + version,
             "Summary: " + proj.get("description", "")]
    if "requires-python" in proj:
        lines.append("Requires-Python: " + proj["requires-python"])
    return "\n".join(lines) + "\n"


def _tag(lib):
    if not lib:
        return "py3-none-any", "true"
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return "py3-none-" + plat, "false"


def _record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (path, digest, len(data))


# ---- PEP 517 hooks ----------------------------------------------------------------------
def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    proj, version = _project(), _version()
    lib = _library()
    tag, purelib = _tag(lib)
    name = proj["name"]
    dist = "%s-%s.dist-info" % (name, version)
    files = _files(lib)
    files.append((dist + "/METADATA", _metadata(proj, version).encode()))
    files.append((dist + "/WHEEL", ("Wheel-Version: 1.0\nGenerator: objrt_build\n"
                                    "Root-Is-Purelib: %s\nTag: %s\n" % (purelib, tag)).encode()))
    files.append((dist + "/top_level.txt", b"objrt\n"))
    record = [_record_line(p, d) for p, d in files] + [dist + "/RECORD,,"]
    wheel = "%s-%s-%s.whl" % (name, version, tag)
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel), "w", zipfile.ZIP_DEFLATED) as z:
        for p, d in files:
            info = zipfile.ZipInfo(p, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if p.endswith(SONAME) else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, d)
        z.writestr(dist + "/RECORD", "\n".join(record) + "\n")
    return wheel
