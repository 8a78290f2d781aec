"""Every third-party module the code imports is declared in pyproject.toml.

A module that is only installed because something else pulled it in (numpy through
pyspark-client, thriftpy2 through happybase) or because a current pip resolved an
extra (lxml_html_clean through justext's ``lxml[html_clean]``) is one resolver change
away from missing on a user's machine: ``pip install .`` with an older pip left out
lxml_html_clean and every HTML record was quarantined (issue 12).

The engine (crawldedup/, jobs/) must find each module in ``[project].dependencies`` or
an optional extra it names (``trafilatura``, the ``[extract] engine`` that is not the
default); the Airflow glue (dags/, plugins/) in those or the ``airflow`` extra; the demo
(demo/, which ``make demo`` runs on a plain install) in ``[project].dependencies`` only;
tests/ and benchmarks/ in any of those or the ``dev`` extra (which names the others as
``crawldedup[...]``).
Imports are read from the AST of every file, including imports inside functions and
``if TYPE_CHECKING:`` blocks; modules map to distributions through
``importlib.metadata.packages_distributions()``, refined by file for a namespace that
several distributions share (``airflow.sdk`` is apache-airflow-task-sdk's,
``airflow.providers.apache.spark`` the Spark provider's).
"""

from __future__ import annotations

import ast
import importlib.metadata as md
import re
import sys
import tomllib
from collections import defaultdict
from functools import cache
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ("crawldedup", "jobs")
AIRFLOW_GLUE = ("plugins", "dags")
SHIPPED = ENGINE + AIRFLOW_GLUE
DEMO = ("demo",)
DEV_ONLY = ("tests", "benchmarks")
FIRST_PARTY = {"crawldedup", "crawldedup_airflow", "crawldedup_demo", "jobs", "tests"}
PROJECT = "crawldedup"


def normalize(name: str) -> str:
    """PEP 503: runs of -, _ and . are one -, case does not matter."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement_name(spec: str) -> str:
    """The distribution name at the start of a PEP 508 requirement string."""
    m = re.match(r"\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)", spec)
    assert m, f"cannot read a distribution name from requirement {spec!r}"
    return normalize(m.group(1))


def _extra_names(spec: str) -> list[str]:
    """The extras a requirement asks for: ``crawldedup[airflow,trafilatura]`` → both."""
    m = re.match(r"\s*[A-Za-z0-9._-]+\s*\[([^\]]*)\]", spec)
    return [e.strip() for e in m.group(1).split(",") if e.strip()] if m else []


def _extras(pyproject: Path) -> dict[str, set[str]]:
    """Every extra: name → normalized distribution names, with the project's own extras
    that one names (``crawldedup[airflow]`` in ``dev``) expanded in place."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    raw: dict[str, list[str]] = project.get("optional-dependencies", {})

    def expand(extra: str, seen: frozenset[str]) -> set[str]:
        out: set[str] = set()
        for spec in raw[extra]:
            if _requirement_name(spec) != PROJECT:
                out.add(_requirement_name(spec))
                continue
            for named in _extra_names(spec):
                assert named in raw, f"extra {extra!r} names an unknown extra {named!r}"
                if named not in seen:
                    out |= expand(named, seen | {named})
        return out

    return {extra: expand(extra, frozenset({extra})) for extra in raw}


def declared(pyproject: Path = ROOT / "pyproject.toml") -> tuple[set[str], set[str]]:
    """(runtime dependencies, dev extras), as normalized distribution names."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    runtime = {_requirement_name(s) for s in project.get("dependencies", [])}
    return runtime, _extras(pyproject).get("dev", set())


def optional(pyproject: Path = ROOT / "pyproject.toml") -> dict[str, set[str]]:
    """The extras other than ``dev``: name → normalized distribution names."""
    return {k: v for k, v in _extras(pyproject).items() if k != "dev"}


def _is_local(top: str, source: Path) -> bool:
    """A module beside the importing file (a benchmark script importing its neighbour)."""
    here = source.parent
    return (here / f"{top}.py").is_file() or (here / top / "__init__.py").is_file()


def third_party_imports(folders: tuple[str, ...]) -> dict[str, set[str]]:
    """Dotted module name -> files importing it, stdlib and first-party left out."""
    found: dict[str, set[str]] = defaultdict(set)
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    top = name.split(".", 1)[0]
                    if top in sys.stdlib_module_names or top in FIRST_PARTY:
                        continue
                    if _is_local(top, path):
                        continue
                    found[name].add(str(path.relative_to(ROOT)))
    return dict(found)


@cache
def _packages() -> dict[str, list[str]]:
    return md.packages_distributions()


@cache
def _files(dist: str) -> frozenset[str]:
    return frozenset(str(f) for f in (md.distribution(dist).files or ()))


def distributions_of(module: str) -> set[str]:
    """Normalized names of the installed distributions that provide ``module``.

    The top-level name goes through packages_distributions(); when several
    distributions share it, the one shipping the module's own file (or, failing
    that, its nearest parent package's) is taken.
    """
    top = module.split(".", 1)[0]
    dists = sorted(set(_packages().get(top, [])))
    if len(dists) > 1:
        parts = module.split(".")
        for k in range(len(parts), 0, -1):
            base = "/".join(parts[:k])
            wanted = {f"{base}.py", f"{base}/__init__.py"}
            owners = [d for d in dists if _files(d) & wanted]
            if owners:
                dists = owners
                break
    return {normalize(d) for d in dists}


def undeclared(imports: dict[str, set[str]], allowed: set[str]) -> list[str]:
    problems = []
    for module, files in sorted(imports.items()):
        dists = distributions_of(module)
        where = ", ".join(sorted(files)[:3]) + (" …" if len(files) > 3 else "")
        if not dists:
            problems.append(
                f"{module}: no installed distribution provides it (imported by {where})"
            )
        elif not dists & allowed:
            problems.append(
                f"{module}: from {' or '.join(sorted(dists))}, not declared (imported by {where})"
            )
    return problems


def test_engine_imports_only_core_dependencies() -> None:
    runtime, _ = declared()
    imports = third_party_imports(ENGINE)
    # The scan must see the imports that issue 12 was about, or it proves nothing.
    for module in ("numpy", "bitarray", "thriftpy2.transport", "lxml_html_clean", "trafilatura"):
        assert module in imports, f"the AST scan missed {module}"
    for module in ("resiliparse.parse.html", "fastwarc.warc"):
        assert module in imports, f"the AST scan missed {module}"
    # The optional engine comes with its extra, which a user installs to select it.
    extras = optional()
    assert {"trafilatura", "lxml-html-clean"} <= extras["trafilatura"]
    problems = undeclared(imports, runtime | extras["trafilatura"])
    assert not problems, "add to [project].dependencies in pyproject.toml:\n" + "\n".join(problems)


def test_airflow_glue_imports_only_core_or_airflow_extra_dependencies() -> None:
    runtime, _ = declared()
    imports = third_party_imports(AIRFLOW_GLUE)
    for module in ("airflow.sdk", "pendulum"):
        assert module in imports, f"the AST scan missed {module}"
    extras = optional()
    problems = undeclared(imports, runtime | extras["airflow"] | extras["trafilatura"])
    assert not problems, "add to the airflow extra in pyproject.toml:\n" + "\n".join(problems)


def test_demo_imports_only_core_dependencies() -> None:
    """``make demo`` installs the plain engine, then runs demo/crawldedup_demo."""
    runtime, _ = declared()
    imports = third_party_imports(DEMO)
    assert "fastwarc.warc" in imports and "pyarrow" in imports, "the AST scan missed demo/"
    problems = undeclared(imports, runtime)
    assert not problems, "make demo installs only [project].dependencies:\n" + "\n".join(problems)


def test_dev_extra_includes_the_other_extras() -> None:
    """The tests cover the Airflow glue and both extraction engines."""
    _, dev = declared()
    for name, dists in optional().items():
        assert dists <= dev, f"dev lacks {sorted(dists - dev)} of the {name} extra"


def test_tests_and_benchmarks_import_only_declared_or_dev_dependencies() -> None:
    runtime, dev = declared()
    imports = third_party_imports(DEV_ONLY)
    assert "pytest" in imports and "hypothesis" in imports, "the AST scan missed tests/"
    problems = undeclared(imports, runtime | dev)
    assert not problems, (
        "add to [project].dependencies or the dev extras in pyproject.toml:\n" + "\n".join(problems)
    )


def test_namespace_modules_map_to_the_distribution_that_ships_them() -> None:
    assert distributions_of("airflow.sdk") == {"apache-airflow-task-sdk"}
    assert distributions_of("airflow.providers.apache.spark.operators.spark_submit") == {
        "apache-airflow-providers-apache-spark"
    }
    assert distributions_of("yaml") == {"pyyaml"}
    assert distributions_of("lxml_html_clean") == {"lxml-html-clean"}


def test_the_check_fails_for_an_undeclared_import(tmp_path: Path) -> None:
    """Reading a pyproject without numpy, the shipped code's numpy imports are reported."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    stripped = re.sub(r'(?m)^\s*"numpy[^"]*",.*\n', "", text)
    assert stripped != text, "numpy is not declared on a line of its own"
    (tmp_path / "pyproject.toml").write_text(stripped, encoding="utf-8")
    runtime, _ = declared(tmp_path / "pyproject.toml")
    assert "numpy" not in runtime
    problems = undeclared(third_party_imports(SHIPPED), runtime)
    assert any(p.startswith("numpy: from numpy, not declared") for p in problems), problems
