"""Airflow test helpers: the plugins on sys.path, isolated Airflow homes, the DAG runner.

Airflow reads its configuration (AIRFLOW_HOME, folders, connections) once per process,
when it is first imported. So nothing Airflow-side runs in the pytest process: the DagBag
check and every ``dag.test()`` run in a subprocess whose environment is built here, from
a metadata DB migrated once per session and copied per scenario.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
DAGS = ROOT / "dags"
PLUGINS = ROOT / "plugins"
HERE = Path(__file__).resolve().parent
VENV_BIN = Path(sys.executable).parent

# The pure plugin modules (day, quality, stores) are unit-tested in this process.
if str(PLUGINS) not in sys.path:
    sys.path.insert(0, str(PLUGINS))

# The folders the DAG's path params may point into in the tests' Airflows
# (CRAWLDEDUP_ALLOWED_ROOTS): the example files under config/ and, once
# allowed_test_roots has run, this session's temporary folder (sample crawl, homes).
TEST_ROOTS: list[Path] = [ROOT / "config"]


@pytest.fixture(scope="session", autouse=True)
def allowed_test_roots(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Adds pytest's temporary folder of this session to ``TEST_ROOTS`` (every fixture that
    starts an Airflow builds its environment with ``airflow_env``, after this one)."""
    base = tmp_path_factory.getbasetemp().resolve()
    if base not in TEST_ROOTS:
        TEST_ROOTS.append(base)
    return TEST_ROOTS


def airflow_env(airflow_home: Path, **extra: str) -> dict[str, str]:
    """The environment of one isolated Airflow: its own home and SQLite DB, our folders.

    The developer's own AIRFLOW_* and CRAWLDEDUP_* settings (an AIRFLOW_CONN_HBASE_DEFAULT,
    say) are dropped so that they cannot change what a test runs against.
    """
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("AIRFLOW", "CRAWLDEDUP_")) or k.startswith("CRAWLDEDUP_TEST_")
    }
    java_home = os.environ.get("JAVA_HOME", "/usr/lib/jvm/java-17-openjdk-amd64")
    env.update(
        {
            "AIRFLOW_HOME": str(airflow_home),
            "AIRFLOW__CORE__DAGS_FOLDER": str(DAGS),
            "AIRFLOW__CORE__PLUGINS_FOLDER": str(PLUGINS),
            "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
            # Spark through the provider's connection, as in production (local master).
            "AIRFLOW_CONN_SPARK_DEFAULT": json.dumps({"conn_type": "spark", "host": "local[*]"}),
            # spark-submit, the driver's python and Java 17, as scripts/env.sh sets them.
            "JAVA_HOME": java_home,
            "PATH": f"{VENV_BIN}:{java_home}/bin:{os.environ.get('PATH', '')}",
            "PYSPARK_PYTHON": sys.executable,
            "SPARK_LOCAL_IP": "127.0.0.1",
            # A failing stage should fail the test in seconds, not after minutes of backoff.
            "CRAWLDEDUP_RETRIES": "1",
            "CRAWLDEDUP_RETRY_DELAY_S": "5",
            "CRAWLDEDUP_SENSOR_POKE_S": "5",
            "CRAWLDEDUP_SENSOR_TIMEOUT_H": "0.05",
            # The tests' folders; a test of the refusal passes its own.
            "CRAWLDEDUP_ALLOWED_ROOTS": os.pathsep.join(str(p) for p in TEST_ROOTS),
        }
    )
    env.update(extra)
    return env


@pytest.fixture(scope="session")
def airflow_db_template(
    tmp_path_factory: pytest.TempPathFactory, allowed_test_roots: list[Path]
) -> Path:
    """A migrated, empty metadata DB (``airflow db migrate`` once, ~6 s), to copy."""
    home = tmp_path_factory.mktemp("airflow-template")
    proc = subprocess.run(
        [str(VENV_BIN / "airflow"), "db", "migrate"],
        env=airflow_env(home),
        capture_output=True,
        text=True,
        timeout=600,
    )
    if proc.returncode != 0:
        raise RuntimeError(
            f"airflow db migrate failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        )
    return home / "airflow.db"


def new_airflow_home(path: Path, template_db: Path) -> Path:
    """A fresh Airflow home holding a copy of the migrated DB."""
    path.mkdir(parents=True)
    shutil.copy(template_db, path / "airflow.db")
    return path


@dataclass
class DagRunResult:
    """What one ``dag.test()`` did (parsed from tests/airflow/dag_run.py's RESULT line)."""

    state: str
    tasks: dict[str, str]
    xcom: dict[str, Any]
    output: str
    wall_seconds: float
    log: Path
    raw: dict[str, Any] = field(default_factory=dict)

    def brief(self) -> str:
        """For assertion messages: states and the end of the output."""
        tail = self.output[-6000:]
        return f"state={self.state} tasks={self.tasks}\n--- {self.log} (tail) ---\n{tail}"


def run_dag(
    env: Mapping[str, str],
    log: Path,
    *,
    logical_date: str | None,
    conf: Mapping[str, Any],
    mark_success: str | None = None,
    timeout: float = 3600,
) -> DagRunResult:
    """Run ``crawl_dedup_daily`` once with ``dag.test()`` in a fresh process."""
    cmd = [sys.executable, str(HERE / "dag_run.py"), "--conf", json.dumps(dict(conf))]
    if logical_date is not None:
        cmd += ["--logical-date", logical_date]
    if mark_success is not None:
        cmd += ["--mark-success", mark_success]
    t0 = time.perf_counter()
    proc = subprocess.run(
        cmd,
        env=dict(env),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=timeout,
    )
    wall = time.perf_counter() - t0
    log.write_text(proc.stdout)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
    if not lines:
        raise AssertionError(
            f"dag_run.py exited {proc.returncode} without a result:\n{proc.stdout[-6000:]}"
        )
    raw = json.loads(lines[-1][len("RESULT ") :])
    return DagRunResult(
        state=raw.get("state", "?"),
        tasks=raw.get("tasks", {}),
        xcom=raw.get("xcom", {}),
        output=proc.stdout,
        wall_seconds=round(wall, 1),
        log=log,
        raw=raw,
    )


def run_child(code: str, env: dict[str, str], *args: str) -> dict[str, Any]:
    """Run ``code`` in a child Python (a fresh Airflow); its last ``RESULT {json}`` line."""
    proc = subprocess.run(
        [sys.executable, "-c", code, *args],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
    assert lines, f"exit {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    result: dict[str, Any] = json.loads(lines[-1][len("RESULT ") :])
    return result


# --- a real API server -------------------------------------------------------------------


@dataclass
class ApiServer:
    url: str
    env: dict[str, str]
    headers: dict[str, str]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def api_server_on(home: Path, env: dict[str, str]) -> Iterator[ApiServer]:
    """``airflow api-server`` of the Airflow at ``home`` (its ``env``) on 127.0.0.1, one
    worker, logged in as the admin the simple auth manager generates a password for;
    stopped on exit."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = (home / "api-server.log").open("w")
    proc = subprocess.Popen(
        [str(VENV_BIN / "airflow"), "api-server", "--host", "127.0.0.1", "--port", str(port)],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 180
        while True:
            assert proc.poll() is None, (home / "api-server.log").read_text()[-3000:]
            assert time.monotonic() < deadline, (home / "api-server.log").read_text()[-3000:]
            try:
                if httpx.get(f"{url}/api/v2/monitor/health", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            time.sleep(1)
        passwords = home / "simple_auth_manager_passwords.json.generated"
        password = json.loads(passwords.read_text())["admin"]
        token = httpx.post(
            f"{url}/auth/token", json={"username": "admin", "password": password}, timeout=30
        )
        assert token.status_code in (200, 201), token.text
        headers = {"Authorization": f"Bearer {token.json()['access_token']}"}
        yield ApiServer(url, env, headers)
    finally:
        os.killpg(proc.pid, 15)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait()
        log.close()


@pytest.fixture(scope="session")
def api_server(
    tmp_path_factory: pytest.TempPathFactory, airflow_db_template: Path
) -> Iterator[ApiServer]:
    """The session's API server (tests keep to their own ids), see :func:`api_server_on`."""
    home = new_airflow_home(tmp_path_factory.mktemp("api-server") / "airflow", airflow_db_template)
    with api_server_on(home, airflow_env(home, AIRFLOW__API__WORKERS="1")) as server:
        yield server
