"""The --py-files zip and the spark-submit command lines (no JVM, no cluster)."""

from __future__ import annotations

import ast
import hashlib
import json
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

import crawldedup
from crawldedup.pipeline.package import DRIVER_ONLY, build_zip
from crawldedup.pipeline.submit import spark_submit_cmd, submit_env

SRC = Path(crawldedup.__file__).resolve().parent  # the repo's package (editable install)
JOBS = SRC.parent / "jobs"
# Python's -c code that hides the venv's editable install of the repo, so that only the
# zip can serve crawldedup (as on an executor that does not have the project installed).
NO_EDITABLE = (
    "import sys; sys.meta_path[:] = [f for f in sys.meta_path"
    " if 'editable' not in getattr(f, '__module__', '')]; "
)


@pytest.fixture(scope="module")
def project_zip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_zip(tmp_path_factory.mktemp("dist"))


def _entry(module: str) -> str | None:
    """The zip entry of a first-party module or package, None if there is no such module."""
    rel = module.split(".")[1:]
    for candidate in (SRC.joinpath(*rel, "__init__.py"), SRC.joinpath(*rel).with_suffix(".py")):
        if candidate.is_file():
            return f"crawldedup/{candidate.relative_to(SRC).as_posix()}"
    return None


def _imports(path: Path) -> Iterator[tuple[str, bool]]:
    """The first-party modules a source file imports (anywhere), and whether in a function."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parent = {c: n for n in ast.walk(tree) for c in ast.iter_child_nodes(n)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            assert not node.level, f"{path}: relative import"  # none in the project
            names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        else:
            continue
        up, in_function = node, False
        while up in parent:
            up = parent[up]
            in_function |= isinstance(up, (ast.FunctionDef, ast.AsyncFunctionDef))
        for name in names:
            if name.split(".")[0] == "crawldedup" and _entry(name):
                yield name, in_function


def test_zip_is_reproducible_without_bytecode_and_leaves_the_driver_only_code_out(
    project_zip: Path, tmp_path: Path
) -> None:
    again = build_zip(tmp_path)
    assert again.name == project_zip.name and again.name.startswith("crawldedup-")
    assert again.read_bytes() == project_zip.read_bytes()
    with zipfile.ZipFile(project_zip) as zf:
        names = zf.namelist()
        assert {i.date_time for i in zf.infolist()} == {(2020, 1, 1, 0, 0, 0)}
    assert names == sorted(names)
    assert "crawldedup/__init__.py" in names and "crawldedup/cli.py" in names
    assert "crawldedup/pipeline/log4j2.properties" in names and "crawldedup/py.typed" in names
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
    assert not [n for n in names if n.startswith("crawldedup/sample/")]  # and its data
    for left_out in ("demo.py", "pipeline/submit.py", "pipeline/package.py", "views.py"):
        assert f"crawldedup/{left_out}" not in names
    assert "crawldedup/relevance/views.py" not in names


def test_zip_holds_every_module_the_stages_executor_code_imports(project_zip: Path) -> None:
    names = set(zipfile.ZipFile(project_zip).namelist())
    # Independent of package.py: every import statement of the stage modules, at module
    # level or in a function (mapPartitions / mapInArrow / UDF code imports lazily), then
    # of what they import, and so on; with each module's parent packages.
    todo = [f"crawldedup.pipeline.{p.stem}" for p in sorted(SRC.glob("pipeline/*_stage.py"))]
    assert len(todo) >= 6
    closure: set[str] = set()
    while todo:
        module = todo.pop()
        if module in closure:
            continue
        closure.add(module)
        parts = module.split(".")
        todo += [".".join(parts[:i]) for i in range(1, len(parts))]
        entry = _entry(module)
        assert entry is not None, module
        todo += [name for name, _ in _imports(SRC.parent / entry)]
    missing = sorted(m for m in closure if _entry(m) not in names)
    assert not missing, missing
    assert {"crawldedup.core.fingerprint", "crawldedup.store.hbase_store"} <= closure


def test_every_import_in_the_zip_and_the_jobs_resolves_inside_the_zip(project_zip: Path) -> None:
    names = set(zipfile.ZipFile(project_zip).namelist())
    sources = [SRC.parent / n for n in sorted(names) if n.endswith(".py")]
    cut: set[str] = set()
    for path in [*sources, *sorted(JOBS.glob("*.py"))]:
        for name, in_function in _imports(path):
            if _entry(name) in names:
                continue
            # Only the CLI's own commands (sample, demo, groups, ...) may import what the
            # zip leaves out, and only lazily: a job never runs them.
            where = f"{path.relative_to(SRC.parent)} imports {name}"
            assert path == SRC / "cli.py" and in_function, where
            assert any(name == d or name.startswith(d + ".") for d in DRIVER_ONLY), where
            cut.add(name)
    assert "crawldedup.sample" in cut


def test_every_module_of_the_zip_imports_from_the_zip_alone(
    project_zip: Path, tmp_path: Path
) -> None:
    modules = [
        n[: -len(".py")].replace("/", ".").removesuffix(".__init__")
        for n in zipfile.ZipFile(project_zip).namelist()
        if n.endswith(".py")
    ]
    code = NO_EDITABLE + (
        "import importlib, json, crawldedup\n"
        f"for m in {modules!r}: importlib.import_module(m)\n"
        "print(json.dumps({'init': crawldedup.__file__, 'files': sorted("
        "str(getattr(mod, '__file__', None)) for name, mod in sys.modules.items()"
        " if name.split('.')[0] == 'crawldedup')}))"
    )
    # The zip on PYTHONPATH ahead of site-packages (the third-party libraries), the repo
    # neither on sys.path (cwd is elsewhere) nor reachable through the editable install.
    proc = run_with_only_the_zip(code, project_zip, tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["init"] == f"{project_zip}/crawldedup/__init__.py"
    outside = [f for f in out["files"] if not f.startswith(f"{project_zip}/")]
    assert not outside, outside
    assert len(out["files"]) == len(modules)


def run_with_only_the_zip(
    code: str, project_zip: Path, cwd: Path
) -> subprocess.CompletedProcess[str]:
    """``python -c code`` with the zip first on PYTHONPATH and the repo out of reach."""
    env = {**submit_env(), "PYTHONPATH": str(project_zip)}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd, env=env
    )


def test_the_report_job_runs_from_the_zip_alone(project_zip: Path, tmp_path: Path) -> None:
    # As submit_day runs it (and as spark-submit starts a job's driver: the --py-files
    # come first on the driver's PYTHONPATH), the CLI is imported from the zip.
    job = JOBS / "report.py"
    argv = [str(job), "--date", "2026-11-01", "--home", str(tmp_path / "home")]
    code = NO_EDITABLE + (
        "import runpy, crawldedup.cli\n"
        f"assert crawldedup.cli.__file__.startswith({str(project_zip)!r})\n"
        f"sys.argv = {argv!r}\n"
        f"runpy.run_path({str(job)!r}, run_name='__main__')"
    )
    proc = run_with_only_the_zip(code, project_zip, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "[2026-11-01]" in proc.stderr and "report" in proc.stderr


def test_spark_submit_command_ships_the_zip(tmp_path: Path) -> None:
    cmd = spark_submit_cmd("bloom", "spark://127.0.0.1:7077", tmp_path / "p.zip", ["--x"])
    assert cmd[0].endswith("bin/spark-submit")
    assert cmd[cmd.index("--master") + 1] == "spark://127.0.0.1:7077"
    assert cmd[cmd.index("--py-files") + 1] == str(tmp_path / "p.zip")
    assert "--executor-memory" in cmd
    assert cmd[-2].endswith("jobs/bloom.py") and cmd[-1] == "--x"
    local = spark_submit_cmd("bloom", "local[2]", tmp_path / "p.zip", [])
    assert "--executor-memory" not in local
    assert "PYTHONPATH" not in submit_env({"PYTHONPATH": "/repo", "PATH": "/bin"})


def test_the_code_stamp_is_read_from_the_zip_when_the_package_runs_from_it(
    tmp_path: Path,
) -> None:
    from crawldedup.code_version import code_version
    from crawldedup.pipeline.package import build_zip

    zipped = build_zip(tmp_path)
    probe = "import crawldedup.code_version as c; print(c.PACKAGE, c.code_version())"
    out = subprocess.run(
        [sys.executable, "-c", probe],
        env={"PYTHONPATH": str(zipped), "PATH": "/usr/bin:/bin"},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert out[0].startswith(str(zipped))  # really imported from the zip
    stamp = out[1]
    # Its own stamp (the zip holds a subset of the modules), not the digest of nothing.
    assert len(stamp) == 12 and stamp != code_version()
    assert stamp != hashlib.sha256().hexdigest()[:12]
