"""The project zip for ``spark-submit --py-files``: what runs with the zip on ``sys.path``.

    python -m crawldedup.pipeline.package [--out dist] [--list]   # prints dist/crawldedup-<ver>.zip

Two kinds of process import ``crawldedup`` from that zip:

* **executors**, which run the functions the stages hand to ``mapPartitions``,
  ``mapInArrow`` and UDFs: they are pickled by reference to their module, so every
  ``crawldedup/pipeline/*_stage.py`` is imported there, with whatever its functions import;
* **the driver of a job**: ``spark-submit`` puts the ``--py-files`` on the driver's
  ``PYTHONPATH`` as well, ahead of the installed project, and the report stage runs as
  ``python jobs/report.py`` with only the zip on its path; ``jobs/*.py`` import
  ``crawldedup.cli``.

So the zip holds the first-party import closure of those roots (:data:`ROOTS` plus
:data:`STAGE_MODULES`), computed with :mod:`ast` from the sources: ``import`` statements at
module level and inside functions (executor code imports lazily), not those under ``if
TYPE_CHECKING:``; a module brings its parent packages' ``__init__.py``. The closure stops
at :data:`DRIVER_ONLY`: modules that only the CLI's other commands (``sample``, ``demo``,
``groups``, ``mirrors``, ``relevance``, ``report --html``), the submitting host and the
benchmarks import,
always from inside a function of :mod:`crawldedup.cli`; a shipped module importing one of
them at import time is an error. Package data travels with its package: the non-Python
files of the directories whose nearest package is in the zip (``py.typed``,
``pipeline/log4j2.properties``); the sample's ``sample/data/`` stays out with ``sample``.

The zip holds sources and package data (no bytecode) under ``crawldedup/`` at its root,
so Python's zipimport finds the package once Spark puts the file on ``sys.path``.
Third-party libraries (pyspark, happybase, jieba with its dictionary, pybloom-live, ...)
are not inside: they come from the executors' Python environment (``PYSPARK_PYTHON``),
which must have the project's dependencies installed (the README's "Running on a Spark
cluster" says how). Same sources, same bytes: entries are sorted and carry a fixed time.
"""

from __future__ import annotations

import argparse
import ast
import sys
import zipfile
from collections.abc import Iterator, Sequence
from pathlib import Path

import crawldedup

__all__ = [
    "DRIVER_ONLY",
    "ROOTS",
    "STAGE_MODULES",
    "build_zip",
    "first_party_imports",
    "module_files",
    "package_files",
    "zip_modules",
]

PACKAGE_DIR = Path(crawldedup.__file__).resolve().parent
ROOTS: tuple[str, ...] = ("crawldedup.cli",)  # what jobs/*.py import on the driver
STAGE_MODULES = "pipeline/*_stage.py"  # glob under the package: the executors' code
DRIVER_ONLY: tuple[str, ...] = (
    "crawldedup.demo",  # crawldedup demo
    "crawldedup.pipeline.package",  # this file: runs where the zip is built
    "crawldedup.pipeline.submit",  # runs spark-submit, on the submitting host
    "crawldedup.relevance.views",  # crawldedup relevance (reads the store)
    "crawldedup.reporting",  # crawldedup report --html and the DAG's report task
    "crawldedup.sample",  # crawldedup sample, demo, tests and benchmarks
    "crawldedup.views",  # crawldedup groups / mirrors (read the store)
)
_FIXED_TIME = (2020, 1, 1, 0, 0, 0)
_SKIP_DIRS = {"__pycache__"}
_SKIP_SUFFIXES = {".pyc", ".pyo"}


def _is_driver_only(module: str) -> bool:
    return any(module == d or module.startswith(d + ".") for d in DRIVER_ONLY)


def _source_files(package_dir: Path) -> Iterator[Path]:
    for path in sorted(package_dir.rglob("*")):
        rel = path.relative_to(package_dir)
        if not path.is_file() or path.suffix in _SKIP_SUFFIXES:
            continue
        if any(part in _SKIP_DIRS or part.startswith(".") for part in rel.parts):
            continue
        yield path


def module_files(package_dir: Path = PACKAGE_DIR) -> dict[str, Path]:
    """Every first-party module, dotted name -> source file (a package -> its ``__init__``)."""
    out: dict[str, Path] = {}
    for path in _source_files(package_dir):
        if path.suffix != ".py":
            continue
        parts = [package_dir.name, *path.relative_to(package_dir).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        elif not (path.parent / "__init__.py").is_file():
            continue  # a script in a data folder, not importable as part of the package
        out[".".join(parts)] = path
    return out


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(tree: ast.Module) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement run at some point, with whether it is inside a function."""

    def walk(
        node: ast.AST, in_function: bool
    ) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child.test):
                for sub in child.orelse:
                    yield from walk(sub, in_function)
                continue
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                yield child, in_function
            inner = in_function or isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
            )
            yield from walk(child, inner)

    yield from walk(tree, False)


def first_party_imports(
    module: str, path: Path, modules: dict[str, Path] | None = None
) -> list[tuple[str, bool]]:
    """The first-party modules ``module`` (source ``path``) imports, as ``(name, lazily)``.

    ``lazily`` is true for an import inside a function. ``from a.b import c`` names
    ``a.b`` and, when ``c`` is a module rather than an attribute, ``a.b.c``.
    """
    modules = module_files() if modules is None else modules
    is_package = path.name == "__init__.py"
    found: dict[str, bool] = {}

    def add(name: str, lazily: bool) -> None:
        if name in modules:
            found[name] = found.get(name, True) and lazily

    for node, lazily in _import_nodes(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name, lazily)
            continue
        base = node.module or ""
        if node.level:
            anchor = module.split(".")
            anchor = anchor[: len(anchor) - node.level + (1 if is_package else 0)]
            base = ".".join([*anchor, base] if base else anchor)
        add(base, lazily)
        for alias in node.names:
            add(f"{base}.{alias.name}", lazily)
    return sorted(found.items())


def zip_modules(package_dir: Path = PACKAGE_DIR) -> list[str]:
    """The modules of the zip: the import closure of the roots, sorted."""
    modules = module_files(package_dir)
    stages = sorted(
        ".".join([package_dir.name, *p.relative_to(package_dir).with_suffix("").parts])
        for p in package_dir.glob(STAGE_MODULES)
    )
    todo = [m for m in (*ROOTS, *stages) if m in modules]
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        if _is_driver_only(name):
            raise ValueError(f"{name} is driver-only (DRIVER_ONLY) but a root of the zip")
        seen.add(name)
        parts = name.split(".")
        todo += [".".join(parts[:i]) for i in range(1, len(parts))]  # its packages
        for imported, lazily in first_party_imports(name, modules[name], modules):
            if not _is_driver_only(imported):
                todo.append(imported)
            elif not lazily:
                raise ValueError(
                    f"{name} imports the driver-only {imported} at import time: "
                    "the zip would not import"
                )
    return sorted(seen)


def package_files(package_dir: Path = PACKAGE_DIR) -> Iterator[Path]:
    """Every file of the package that belongs in the zip, sorted: the closure's modules and
    the package data of their packages."""
    modules = module_files(package_dir)
    wanted = set(zip_modules(package_dir))
    packages = {modules[m].parent for m in wanted if modules[m].name == "__init__.py"}
    keep = {modules[m] for m in wanted}
    for path in _source_files(package_dir):
        if path.suffix != ".py":
            # Data belongs to the nearest package above it.
            owner = path.parent
            while owner != package_dir and not (owner / "__init__.py").is_file():
                owner = owner.parent
            if owner in packages:
                keep.add(path)
    yield from sorted(keep)


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
    p.add_argument("--list", action="store_true", help="print the zip's entries on stderr")
    args = p.parse_args(argv)
    target = build_zip(args.out)
    if args.list:
        with zipfile.ZipFile(target) as zf:
            for info in zf.infolist():
                print(f"{info.file_size:>8}  {info.filename}", file=sys.stderr)
    print(target.resolve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
