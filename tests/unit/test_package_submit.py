"""The --py-files wheel, the environment of a submission and the spark-submit commands the
Spark provider's hook builds for the stages (no JVM, no cluster)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import crawldedup
from crawldedup.pipeline.submit import LOG4J, build_dist, submit_env

SRC = Path(crawldedup.__file__).resolve().parent  # the repo's package (editable install)
JOBS = SRC.parent / "jobs"
VENV_BIN = Path(sys.executable).parent
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
    job = JOBS / "day.py"
    # A dry run: the report of a day never committed needs no store.
    home = str(tmp_path / "home")
    argv = [str(job), "report", "--date", "2026-11-01", "--home", home, "--dry-run"]
    code = NO_EDITABLE + (
        "import runpy, crawldedup.cli\n"
        f"assert crawldedup.cli.__file__.startswith({str(project_zip)!r})\n"
        f"sys.argv = {argv!r}\n"
        f"runpy.run_path({str(job)!r}, run_name='__main__')"
    )
    proc = run_with_only_the_zip(code, project_zip, tmp_path)
    # A day without documents fails the gate, as the CLI's run and the DAG's report task.
    assert proc.returncode == 3, proc.stderr
    assert "[2026-11-01]" in proc.stderr and "report" in proc.stderr
    assert "data-quality gate failed: 2026-11-01: no input documents" in proc.stderr


def test_a_submission_has_no_pythonpath_and_finds_the_venvs_spark_submit() -> None:
    env = submit_env({"PYTHONPATH": "/repo", "PATH": "/opt/spark/bin:/bin"})
    assert "PYTHONPATH" not in env
    # A spark-submit already on PATH (a deployment's Spark) comes first, pyspark's after.
    assert env["PATH"].split(os.pathsep) == ["/opt/spark/bin", "/bin", str(VENV_BIN)]
    assert env["PYSPARK_PYTHON"] == env["PYSPARK_DRIVER_PYTHON"] == sys.executable
    assert (VENV_BIN / "spark-submit").is_file()


# What the Spark provider's hook is given for a stage (crawldedup_airflow.submit_day),
# read back as the spark-submit command the hook builds: in a child Python, since
# Airflow reads its configuration once per process (and the engine's tests import none).
HOOK_COMMANDS = r"""
import json, os, sys
from pathlib import Path
from crawldedup_airflow.submit_day import application, check_connection, spark_conn_env, stage_hook
zip_ = Path(sys.argv[1])
# What --master does: defines the connection for this process.
os.environ.update(spark_conn_env("spark://127.0.0.1:7077", "crawldedup_cluster"))
out = {}
for conn_id in ("spark_default", "crawldedup_cluster"):
    hook = stage_hook("dedup", ["bloom", "--date", "2026-11-01"], zip_, conn_id=conn_id,
                      conf={"spark.eventLog.enabled": "true"}, driver_memory="3g")
    out[conn_id] = hook._build_spark_submit_command(application())
try:
    check_connection("undefined")
except LookupError as exc:
    out["undefined"] = str(exc)
print("RESULT " + json.dumps(out))
"""


@pytest.mark.airflow
@pytest.mark.skipif(importlib.util.find_spec("airflow") is None, reason="the airflow extra")
def test_the_spark_provider_hook_is_given_each_stage_with_the_zip(tmp_path: Path) -> None:
    from tests.airflow.conftest import airflow_env, run_child  # (no Airflow import)

    env = airflow_env(
        tmp_path / "airflow",
        # No metadata DB: outside a task the SDK reads connections from the environment.
        AIRFLOW__DATABASE__SQL_ALCHEMY_CONN=f"sqlite:///{tmp_path}/missing/airflow.db",
        AIRFLOW_CONN_SPARK_DEFAULT=json.dumps({"conn_type": "spark", "host": "local[2]"}),
    )
    zip_ = tmp_path / "crawldedup-0.1.0.zip"
    out = run_child(HOOK_COMMANDS, env, str(zip_))
    masters = {"spark_default": "local[2]", "crawldedup_cluster": "spark://127.0.0.1:7077"}
    for conn_id, master in masters.items():
        cmd = out[conn_id]
        assert cmd[0] == "spark-submit"  # the one on PATH (submit_env adds the venv's)
        assert cmd[cmd.index("--master") + 1] == master
        assert cmd[cmd.index("--py-files") + 1] == str(zip_)
        assert cmd[cmd.index("--name") + 1] == "crawldedup-dedup"
        assert cmd[cmd.index("--driver-memory") + 1] == "3g"
        confs = [cmd[i + 1] for i, x in enumerate(cmd) if x == "--conf"]
        assert "spark.eventLog.enabled=true" in confs
        assert f"spark.driver.extraJavaOptions=-Dlog4j2.configurationFile={LOG4J}" in confs
        assert cmd[-4:] == [str(JOBS / "day.py"), "bloom", "--date", "2026-11-01"]
    # A missing connection is refused (the hook alone would fall back to yarn).
    assert "AIRFLOW_CONN_UNDEFINED=" in out["undefined"]


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
