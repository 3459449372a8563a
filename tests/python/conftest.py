"""pytest configuration for tests/python: puts this directory on sys.path,
so that suites in subdirectories (tests/python/ops/*.py) can
`import op_harness` and `import litegpu_ctypes`."""

import sys
from pathlib import Path

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
