"""pytest configuration for tests/python: puts this directory and the
package source (python/) on sys.path, so that suites in subdirectories
(tests/python/ops/*.py) can `import op_harness`, and every suite imports
the `litegpu` package of this checkout (its `capi` layer drives the
library; LITEGPU_BUILD_DIR picks the build)."""

import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent
for _path in (str(_HERE), str(_HERE.parents[1] / "python")):
    if _path not in sys.path:
        sys.path.insert(0, _path)
