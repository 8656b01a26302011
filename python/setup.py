"""Build step of the clconv package: the package's own libclconv.

The library's C sources (../host/lib/*.c) and the binding's flat-argument
functions (src/clconv_py.c) are compiled into one shared library,
clconv/_lib/libclconv_py.so, and the kernels (../cl) are copied to
clconv/cl, where the library looks for them (../cl beside its own file).
Both travel in the wheel as package files, so `pip uninstall clconv`
removes them. The compiler, its flags and OpenCL/libpng come from the
system (scripts/deps.sh installs them on Debian/Ubuntu).
"""
import glob
import os
import shutil
from concurrent.futures import ThreadPoolExecutor

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
LIBNAME = "libclconv_py.so"


class BinaryDistribution(Distribution):
    """The wheel holds native code: tag it for this platform and Python."""

    def has_ext_modules(self):
        return True


class build_py_with_lib(build_py):
    """build_py, plus the shared library and the kernels."""

    def run(self):
        super().run()
        pkg = os.path.join(self.build_lib, "clconv")
        self._copy_kernels(os.path.join(pkg, "cl"))
        self._build_library(os.path.join(pkg, "_lib"))

    @staticmethod
    def _sources():
        lib = sorted(glob.glob(os.path.join(ROOT, "host", "lib", "*.c")))
        if not lib or not os.path.isdir(os.path.join(ROOT, "cl")):
            raise SystemExit(
                "clconv: the C sources are not at %s (host/lib, cl); build "
                "the package from a clconv checkout: pip install ./python" % ROOT)
        return lib + [os.path.join(HERE, "src", "clconv_py.c")]

    def _copy_kernels(self, dest):
        os.makedirs(dest, exist_ok=True)
        for f in glob.glob(os.path.join(ROOT, "cl", "*.cl*")):
            shutil.copy2(f, dest)

    def _build_library(self, dest):
        from setuptools._distutils.ccompiler import new_compiler
        from setuptools._distutils.sysconfig import customize_compiler

        os.makedirs(dest, exist_ok=True)
        cc = new_compiler()
        customize_compiler(cc)
        flags = ["-std=c11", "-D_DEFAULT_SOURCE", "-O2", "-fPIC",
                 "-fopenmp", "-fvisibility=default", "-Wall"]
        tmp = os.path.join(os.path.abspath(self.build_lib), "..",
                           "clconv-objects")
        sources = self._sources()

        def one(src):
            return cc.compile([src], output_dir=tmp,
                              include_dirs=[os.path.join(ROOT, "include")],
                              extra_preargs=flags)[0]

        jobs = max(1, min(len(sources), os.cpu_count() or 1))
        with ThreadPoolExecutor(jobs) as pool:
            objects = list(pool.map(one, sources))
        mapfile = os.path.join(tmp, "libclconv_py.map")
        with open(mapfile, "w") as f:
            f.write("{ global: clconv_*; clconvpy_*; local: *; };\n")
        cc.link_shared_object(
            objects, os.path.join(dest, LIBNAME),
            libraries=["OpenCL", "png", "m"],
            extra_preargs=["-fopenmp"],
            extra_postargs=["-Wl,--version-script=" + mapfile,
                            "-Wl,--no-undefined"])


setup(distclass=BinaryDistribution, cmdclass={"build_py": build_py_with_lib})
