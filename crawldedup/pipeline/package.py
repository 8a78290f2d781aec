"""The project as one zip for ``spark-submit --py-files`` (executors import it from there).

    python -m crawldedup.pipeline.package [--out dist]    # prints dist/crawldedup-<ver>.zip

The zip holds the ``crawldedup`` package (sources and package data, no bytecode) at its
root, so Python's zipimport finds it once Spark puts the file on the executors' sys.path.
Third-party libraries (pyspark, happybase, jieba with its dictionary, pybloom-live, ...)
are not inside: they come from the executors' Python environment (``PYSPARK_PYTHON``),
which must have the project's dependencies installed (the README's "Running on a Spark
cluster" says how). Same sources, same bytes: entries are sorted and carry a fixed time.
"""

from __future__ import annotations

import argparse
import sys
import zipfile
from collections.abc import Iterator, Sequence
from pathlib import Path

import crawldedup

PACKAGE_DIR = Path(crawldedup.__file__).resolve().parent
_FIXED_TIME = (2020, 1, 1, 0, 0, 0)
_SKIP_DIRS = {"__pycache__"}
_SKIP_SUFFIXES = {".pyc", ".pyo"}


def package_files(package_dir: Path = PACKAGE_DIR) -> Iterator[Path]:
    """Every file of the package that belongs in the zip, sorted."""
    for path in sorted(package_dir.rglob("*")):
        rel = path.relative_to(package_dir)
        if not path.is_file() or path.suffix in _SKIP_SUFFIXES:
            continue
        if any(part in _SKIP_DIRS or part.startswith(".") for part in rel.parts):
            continue
        yield path


def build_zip(out_dir: Path, package_dir: Path = PACKAGE_DIR) -> Path:
    """Write ``out_dir/crawldedup-<version>.zip`` and return its path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / f"crawldedup-{crawldedup.__version__}.zip"
    tmp = target.with_suffix(".zip.tmp")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for path in package_files(package_dir):
            name = f"{package_dir.name}/{path.relative_to(package_dir).as_posix()}"
            info = zipfile.ZipInfo(name, date_time=_FIXED_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, path.read_bytes())
    tmp.replace(target)  # a reader never sees a half-written zip
    return target


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m crawldedup.pipeline.package")
    p.add_argument("--out", type=Path, default=Path("dist"), help="folder of the zip (dist)")
    args = p.parse_args(argv)
    print(build_zip(args.out).resolve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
