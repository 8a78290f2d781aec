"""The --py-files zip and the spark-submit command lines (no JVM, no cluster)."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

from crawldedup.pipeline.package import build_zip
from crawldedup.pipeline.submit import spark_submit_cmd, stage_args, submit_env


def test_zip_holds_the_package_without_bytecode_and_is_reproducible(tmp_path: Path) -> None:
    first = build_zip(tmp_path / "a")
    second = build_zip(tmp_path / "b")
    assert first.name == second.name and first.name.startswith("crawldedup-")
    assert first.read_bytes() == second.read_bytes()
    names = zipfile.ZipFile(first).namelist()
    assert "crawldedup/__init__.py" in names and "crawldedup/cli.py" in names
    assert "crawldedup/pipeline/log4j2.properties" in names and "crawldedup/py.typed" in names
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]


def test_python_imports_the_package_from_the_zip(tmp_path: Path) -> None:
    zip_path = build_zip(tmp_path)
    # The zip on PYTHONPATH wins over the venv's editable install of the repo.
    proc = subprocess.run(
        [sys.executable, "-c", "import crawldedup; print(crawldedup.__file__)"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**submit_env(), "PYTHONPATH": str(zip_path)},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"{zip_path}/crawldedup/__init__.py"


def test_spark_submit_command_ships_the_zip_and_passes_the_stage_flags(tmp_path: Path) -> None:
    args = stage_args(
        "fingerprint", "2026-11-01", tmp_path, "hbase://h:9090/p", tmp_path / "in", None, ["a=1"]
    )
    assert args == [
        "--date", "2026-11-01", "--home", str(tmp_path), "--store", "hbase://h:9090/p",
        "--set", "a=1", "--input", str(tmp_path / "in"),
    ]  # fmt: skip
    cmd = spark_submit_cmd("bloom", "spark://127.0.0.1:7077", tmp_path / "p.zip", ["--x"])
    assert cmd[0].endswith("bin/spark-submit")
    assert cmd[cmd.index("--master") + 1] == "spark://127.0.0.1:7077"
    assert cmd[cmd.index("--py-files") + 1] == str(tmp_path / "p.zip")
    assert "--executor-memory" in cmd
    assert cmd[-2].endswith("jobs/bloom.py") and cmd[-1] == "--x"
    local = spark_submit_cmd("bloom", "local[2]", tmp_path / "p.zip", [])
    assert "--executor-memory" not in local
    assert "PYTHONPATH" not in submit_env({"PYTHONPATH": "/repo", "PATH": "/bin"})
