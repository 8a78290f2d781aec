"""A Spark standalone cluster (master + 2 workers on loopback) for the cluster tests.

``scripts/spark_cluster.sh up`` starts it once per session; a cluster that was already up
(a developer's) is reused and left running, one this session started is stopped at the end.
"""

from __future__ import annotations

import json
import os
import subprocess
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# The Airflow tests' migrated metadata DB, for the DAG-on-the-cluster test, and the
# allowed roots of its path params (pytest's temporary folder: the sample crawl, homes).
from tests.airflow.conftest import airflow_db_template, allowed_test_roots

__all__ = ["airflow_db_template", "allowed_test_roots", "master_json"]

ROOT = Path(__file__).resolve().parents[2]
CLUSTER = ROOT / "scripts" / "spark_cluster.sh"


def cluster(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CLUSTER), *args], capture_output=True, text=True, timeout=timeout, cwd=ROOT
    )


@pytest.fixture(scope="session")
def spark_master() -> Iterator[str]:
    """The master URL of a running two-worker standalone cluster."""
    was_up = cluster("status").returncode == 0
    proc = cluster("up")
    if proc.returncode != 0:
        raise RuntimeError(f"scripts/spark_cluster.sh up failed:\n{proc.stdout}\n{proc.stderr}")
    try:
        yield proc.stdout.strip().splitlines()[-1]
    finally:
        if not was_up:
            cluster("down")


@pytest.fixture(scope="session")
def project_zip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The --py-files zip, built by scripts/build_dist.sh into a temporary folder."""
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run(
        [str(ROOT / "scripts" / "build_dist.sh"), str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return Path(proc.stdout.strip().splitlines()[-1])


def master_json(master: str) -> dict[str, Any]:
    """The master's JSON status (its web UI's /json/ on port 8080 unless configured)."""
    host = master.removeprefix("spark://").rsplit(":", 1)[0]
    port = os.environ.get("SPARK_MASTER_WEBUI_PORT", "8080")
    with urllib.request.urlopen(f"http://{host}:{port}/json/", timeout=10) as resp:
        data: dict[str, Any] = json.load(resp)
    return data
