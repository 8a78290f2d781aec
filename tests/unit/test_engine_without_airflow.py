"""The engine installs and runs without Airflow.

``pip install .`` gives the engine and its CLI (what the Spark executors run too);
``pip install .[airflow]`` adds what dags/ and plugins/ need. Two proofs here:

- no distribution of Airflow (nor pendulum, nor the Spark provider's pyspark-client) is
  among the core dependencies, in pyproject.toml and in the installed metadata, nor in
  what those core dependencies require in turn (read from the installed metadata);
- every module of the ``crawldedup`` package and every ``jobs/`` entry point imports in a
  fresh interpreter where ``import airflow`` (and pendulum, crawldedup_airflow) raises
  ImportError.

scripts/check_stock_install.sh and the report of the no-Airflow install show the same on
a real venv; this test keeps it true on every run.
"""

from __future__ import annotations

import importlib.metadata as md
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
PROJECT = "crawldedup"
# Distributions only the airflow extra brings; top-level modules the engine must not need.
AIRFLOW_ONLY = re.compile(r"^(apache-airflow.*|pendulum|pyspark-client)$")
BLOCKED = ("airflow", "pendulum", "crawldedup_airflow")


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _name(requirement: str) -> str:
    m = re.match(r"\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)", requirement)
    assert m, requirement
    return normalize(m.group(1))


def _unconditional(requirements: list[str]) -> list[str]:
    """Requirements that hold without any extra (other markers kept: a superset)."""
    return [r for r in requirements if not re.search(r"\bextra\s*==", r.partition(";")[2])]


def test_core_dependencies_name_no_airflow() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    core = {_name(r) for r in project["dependencies"]}
    assert "pyspark" in core and "fastwarc" in core, core
    assert not {d for d in core if AIRFLOW_ONLY.match(d)}, core
    airflow = {_name(r) for r in project["optional-dependencies"]["airflow"]}
    assert {"apache-airflow", "apache-airflow-providers-apache-spark", "pendulum"} <= airflow
    # pyspark-client ships its own pyspark/ folder: the same version as pyspark, always.
    pins = {
        _name(r): r.split("==", 1)[1].strip()
        for r in project["dependencies"] + project["optional-dependencies"]["airflow"]
        if "==" in r and _name(r) in ("pyspark", "pyspark-client")
    }
    assert pins.get("pyspark") and pins.get("pyspark") == pins.get("pyspark-client"), pins
    # The installed metadata (what pip resolves) says the same.
    installed = {_name(r) for r in _unconditional(md.requires(PROJECT) or [])}
    assert installed == core, installed ^ core


def test_nothing_the_core_dependencies_require_is_airflow() -> None:
    """The closure of the core dependencies over the installed distributions' metadata
    (markers other than extras kept, so a superset of what pip installs)."""
    seen: set[str] = set()
    todo = [_name(r) for r in _unconditional(md.requires(PROJECT) or [])]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = md.requires(name) or []
        except md.PackageNotFoundError:
            continue  # a marker that does not hold here (another platform's wheel)
        todo.extend(_name(r) for r in _unconditional(requires))
    assert "pyspark" in seen and "numpy" in seen, seen
    assert not {d for d in seen if AIRFLOW_ONLY.match(d)}, sorted(seen)


_IMPORT_ALL = """
import importlib, importlib.abc, json, pkgutil, runpy, sys
BLOCKED = set(sys.argv[1].split(","))

class NoAirflow(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".", 1)[0] in BLOCKED:
            raise ImportError(f"{name} is blocked: the engine must run without Airflow")
        return None

sys.meta_path.insert(0, NoAirflow())
for name in BLOCKED:
    try:
        importlib.import_module(name)
    except ImportError:
        pass
    else:
        raise SystemExit(f"the blocker let {name} through")
import crawldedup
done, failed = [], {}
for info in pkgutil.walk_packages(crawldedup.__path__, "crawldedup."):
    try:
        importlib.import_module(info.name)
        done.append(info.name)
    except Exception as exc:
        failed[info.name] = f"{type(exc).__name__}: {exc}"
for job in sys.argv[2:]:
    try:
        runpy.run_path(job, run_name="crawldedup_job")  # the body, not its __main__ part
        done.append(job)
    except Exception as exc:
        failed[job] = f"{type(exc).__name__}: {exc}"
loaded = sorted(m for m in sys.modules if m.split(".", 1)[0] in BLOCKED)
print(json.dumps({"done": done, "failed": failed, "loaded": loaded}))
"""


def test_every_engine_module_imports_with_airflow_blocked() -> None:
    jobs = sorted(str(p) for p in (ROOT / "jobs").glob("*.py"))
    assert jobs, "no jobs/ entry points found"
    proc = subprocess.run(
        [sys.executable, "-c", _IMPORT_ALL, ",".join(BLOCKED), *jobs],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert not result["failed"], result["failed"]
    assert not result["loaded"], result["loaded"]
    done = set(result["done"])
    expected = {
        "crawldedup." + ".".join(p.relative_to(ROOT / "crawldedup").with_suffix("").parts)
        for p in (ROOT / "crawldedup").rglob("*.py")
        if p.name != "__init__.py"
    }
    assert expected <= done, sorted(expected - done)
    for module in ("crawldedup.cli", "crawldedup.pipeline.stages", "crawldedup.store.hbase_store"):
        assert module in done, module
    assert set(jobs) <= done


def test_the_engine_package_holds_no_sample_or_demo() -> None:
    """The sample generator and the demo live in demo/crawldedup_demo, out of the wheel."""
    assert not (ROOT / "crawldedup" / "sample").exists()
    assert not (ROOT / "crawldedup" / "demo.py").exists()
    assert (ROOT / "demo" / "crawldedup_demo" / "__main__.py").is_file()
