"""benchmarks/day_jobs.py's reading of a run: the JVM's thread names to roles, and the
jobs, tasks and task metrics of Spark's event log."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.benchmark_modules import load_benchmark_module

day_jobs = load_benchmark_module("benchmarks/day_jobs.py", "day_jobs")


@pytest.mark.parametrize(
    ("name", "role"),
    [
        # Names as /proc/PID/task/TID/comm shows a Spark 4 driver's threads (15 characters).
        ("Executor task l", "tasks"),
        ("Thread-5", "planning (py4j)"),
        ("Thread-123", "planning (py4j)"),
        ("C1 CompilerThre", "JIT"),
        ("C2 CompilerThre", "JIT"),
        ("GC Thread#0", "GC"),
        ("VM Thread", "GC"),
        ("java", "main"),
        ("dag-scheduler-e", "other"),
        ("Thread-pool", "other"),
    ],
)
def test_jvm_threads_are_told_apart_by_their_names(name: str, role: str) -> None:
    assert day_jobs.thread_role(name) == role


def test_an_event_log_gives_jobs_stages_and_task_metrics(tmp_path: Path) -> None:
    def task(stage: int, cpu_ns: int, run_ms: int, shuffle: int) -> dict[str, object]:
        return {
            "Event": "SparkListenerTaskEnd",
            "Stage ID": stage,
            "Task Metrics": {
                "Executor CPU Time": cpu_ns,
                "Executor Run Time": run_ms,
                "JVM GC Time": 10,
                "Shuffle Write Metrics": {"Shuffle Bytes Written": shuffle},
            },
        }

    events = [
        {"Event": "SparkListenerJobStart", "Job ID": 0},
        {"Event": "SparkListenerStageSubmitted", "Stage Info": {"Stage ID": 0, "Stage Name": "a"}},
        task(0, 2_000_000_000, 2500, 1_000_000),
        task(0, 1_000_000_000, 1500, 0),
        {"Event": "SparkListenerJobStart", "Job ID": 1},
        {"Event": "SparkListenerStageSubmitted", "Stage Info": {"Stage ID": 1, "Stage Name": "b"}},
        task(1, 500_000_000, 600, 3_000_000),
    ]
    log_dir = tmp_path / "eventlog_v2_local-1"
    log_dir.mkdir()
    (log_dir / "events_1_local-1").write_text("\n".join(json.dumps(e) for e in events) + "\n")
    log = day_jobs.read_event_log(log_dir)
    assert (log.jobs, len(log.stages), log.tasks) == (2, 2, 3)
    assert log.stages[0].name == "a" and log.stages[0].tasks == 2
    assert log.total("cpu_s") == pytest.approx(3.5)
    assert log.total("run_s") == pytest.approx(4.6)
    assert log.total("gc_s") == pytest.approx(0.03)
    assert log.total("shuffle_write_mb") == pytest.approx(4.0)
