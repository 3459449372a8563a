"""Builds the shared library into the litegpu package (see pyproject.toml).

LITEGPU_BUILD_DIR naming a build directory that holds liblitegpu.so: that
library is copied (no compiler run). Otherwise CMake configures
build/python (release, no tests) and builds the `litegpu` target there.
"""

import os
import shutil
import subprocess
from pathlib import Path

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
LIBRARY = "liblitegpu.so"


def built_library():
    given = os.environ.get("LITEGPU_BUILD_DIR")
    if given and (Path(given) / LIBRARY).is_file():
        return (Path(given) / LIBRARY).resolve()
    build = ROOT / "build" / "python"
    subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build),
                    "-DCMAKE_BUILD_TYPE=Release",
                    "-DLITEGPU_BUILD_TESTS=OFF"], check=True)
    subprocess.run(["cmake", "--build", str(build), "--target", "litegpu",
                    "-j", str(os.cpu_count() or 2)], check=True)
    return (build / LIBRARY).resolve()


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        target = Path(self.build_lib) / "litegpu" / LIBRARY
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built_library(), target)
        os.chmod(target, 0o755)


class BinaryDistribution(Distribution):
    """The wheel holds a native library: platform-specific."""

    def has_ext_modules(self):
        return True


BUILD_BASE = ROOT / "build" / "python-package"
BUILD_BASE.mkdir(parents=True, exist_ok=True)

# setuptools' own build folder stays apart from the CMake build folders
# (build/lib is scripts/build.sh's library-only build).
setup(cmdclass={"build_py": BuildWithLibrary}, distclass=BinaryDistribution,
      options={"build": {"build_base": str(BUILD_BASE)},
               "egg_info": {"egg_base": str(BUILD_BASE)}})
