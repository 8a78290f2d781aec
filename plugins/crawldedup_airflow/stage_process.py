"""A DAG task's stage, run the way a person runs it: ``crawldedup stage NAME <the run's day
arguments> --json`` in a child process (the dedup task's application runs the same command
line under spark-submit, through ``jobs/day.py``).

The child's progress and warnings (stderr) reach the task's log line by line as they come;
its outcome (one JSON object on stdout) comes back to the task, also when the gate fails.
An exit of 1, 2 or 3 (failed, refused, the data-quality gate) fails the task with the
command's own last line, without retries: the same data gives the same answer. A child
killed by a signal (out of memory, the task's timeout) is an ordinary error, retried.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from airflow.sdk.exceptions import AirflowException, AirflowFailException

from crawldedup.stage_registry import stage_argv


@dataclass(frozen=True)
class StageRun:
    """What one ``crawldedup stage`` command did."""

    outcome: dict[str, Any]  # its --json object; empty when it printed none
    returncode: int
    last_line: str  # its last line on stderr, without the program's name

    def raise_for_failure(self, name: str) -> None:
        """Fail the task the way the command failed (see the module's docstring)."""
        if self.returncode in (1, 2, 3):
            raise AirflowFailException(self.last_line or f"crawldedup stage {name} failed")
        if self.returncode != 0:
            raise AirflowException(
                f"crawldedup stage {name} ended with {self.returncode} (killed?): {self.last_line}"
            )


def run_stage(name: str, day_args: Mapping[str, Any], log: Any) -> StageRun:
    """Run stage ``name`` of the run's day (``day_args``: the sensor's ``stage_args``)
    as the command line, relaying its stderr to ``log``."""
    argv = [sys.executable, "-m", "crawldedup.cli", "stage"]
    argv += [*stage_argv((name,), **day_args), "--json"]
    last = ""
    with tempfile.TemporaryFile("w+", encoding="utf-8") as out:
        with subprocess.Popen(
            argv, stdout=out, stderr=subprocess.PIPE, text=True, encoding="utf-8"
        ) as proc:
            assert proc.stderr is not None
            for raw in proc.stderr:
                line = raw.rstrip("\n")
                if not line:
                    continue
                if line.startswith("warning: "):
                    log.warning("%s", line.removeprefix("warning: "))
                elif line.startswith("crawldedup: "):  # the command's one line of failure
                    log.error("%s", line)
                else:
                    log.info("%s", line)
                last = line
        out.seek(0)
        printed = out.read().strip().splitlines()
    objects = [line for line in printed if line.startswith("{")]
    outcome = json.loads(objects[-1]) if objects else {}
    return StageRun(outcome, proc.returncode, last.removeprefix("crawldedup: "))
