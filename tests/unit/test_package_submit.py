"""The --py-files wheel and the spark-submit command lines (no JVM, no cluster)."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import crawldedup
from crawldedup.pipeline.submit import build_dist, spark_submit_cmd, submit_env

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
    return build_dist(tmp_path_factory.mktemp("dist"))


def test_the_dist_is_the_wheel_with_every_source_and_its_package_data(project_zip: Path) -> None:
    names = set(zipfile.ZipFile(project_zip).namelist())
    assert any(n.endswith(".dist-info/WHEEL") for n in names)
    sources = {
        p.relative_to(SRC.parent).as_posix()
        for p in SRC.rglob("*.py")
        if "__pycache__" not in p.parts
    }
    assert sources <= names, sorted(sources - names)[:5]
    assert "crawldedup/pipeline/log4j2.properties" in names


def test_every_module_of_the_zip_imports_from_the_zip_alone(
    project_zip: Path, tmp_path: Path
) -> None:
    modules = [
        n[: -len(".py")].replace("/", ".").removesuffix(".__init__")
        for n in zipfile.ZipFile(project_zip).namelist()
        if n.endswith(".py") and n.startswith("crawldedup/")
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
    # A dry run: the report of a day never committed needs no store.
    argv = [str(job), "--date", "2026-11-01", "--home", str(tmp_path / "home"), "--dry-run"]
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
    project_zip: Path, tmp_path: Path
) -> None:
    from crawldedup.code_version import code_version

    zipped = project_zip
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
    # The wheel holds the same sources as the folder: the same stamp, read from the zip.
    assert out[1] == code_version()
