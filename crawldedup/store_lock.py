"""One run at a time per store namespace: a lease in the store's ``locks`` table.

``HOME/run.lock`` (crawldedup/run_lock.py) keeps two runs off one home's work folders;
this keeps two runs off one store, whichever homes they use (two machines on one HBase
namespace, two homes on one SQLite file). The cell ``locks/run/l:holder`` holds the
holder's JSON (what, host, pid, since, heartbeat) and is taken and given back by the
store's atomic check-and-put (SQLite: a write transaction; HBase: checkAndPut on the
region server), so two runs can never both win.

A holder refreshes its heartbeat every ``LEASE_S / 5`` seconds from a daemon thread. A
lock is stale, and taken over, when its holder's process is gone (same host) or its
heartbeat is older than ``LEASE_S`` (another host: a killed machine). Taking over is a
check-and-put on the stale value, so two runs finding one stale lock cannot both win.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from crawldedup.run_lock import RunLocked
from crawldedup.store import Store, open_store

TABLE, ROW, CELL = "locks", "run", "l:holder"
LEASE_S = 300.0
FREE = b""


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's live process
    return True


def _stale(info: dict[str, Any], now: float, lease_s: float) -> str | None:
    """Why the holder is gone, or None while it may still run."""
    if info.get("host") == socket.gethostname() and not pid_alive(int(info.get("pid", 0))):
        return f"its process {info.get('pid')} is gone"
    beat = float(info.get("beat", 0))
    if now - beat > lease_s:
        return f"no heartbeat for {now - beat:.0f} s (lease {lease_s:.0f} s)"
    return None


class _Lease:
    def __init__(self, store: Store, what: str, lease_s: float) -> None:
        self.store, self.lease_s = store, lease_s
        self.info = {
            "what": what,
            "host": socket.gethostname(),
            "pid": os.getpid(),
            "since": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        }
        self.value = self._value()
        self._lock = threading.Lock()
        self._stop = threading.Event()

    def _value(self) -> bytes:
        return json.dumps({**self.info, "beat": time.time()}, sort_keys=True).encode()

    def _swap(self, expected: bytes | None, value: bytes) -> bool:
        if self.store.check_and_put(TABLE, ROW, CELL, expected, value):
            return True
        # A retried swap whose first attempt landed finds its own value there.
        return self._read() == value

    def _read(self) -> bytes | None:
        return self.store.get(TABLE, [ROW], columns=[CELL]).get(ROW, {}).get(CELL)

    def acquire(self, where: str) -> str | None:
        """Take the lock; returns why a stale holder was replaced, if one was."""
        for _ in range(5):
            if self._swap(None, self.value):
                return None
            held = self._read()
            if held is None:
                continue  # freed and removed in between: try again
            if held == FREE:
                if self._swap(FREE, self.value):
                    return None
                continue
            try:
                info = json.loads(held)
            except ValueError:
                info = {}
            why = _stale(info, time.time(), self.lease_s)
            if why is None:
                raise RunLocked(
                    f"another run holds the store {where} ({info.get('what', '?')} on "
                    f"{info.get('host', '?')}, pid {info.get('pid', '?')}, since "
                    f"{info.get('since', '?')}); wait for it to end"
                )
            if self._swap(held, self.value):
                return f"took over the lock of {info.get('what', '?')} on {info.get('host')}: {why}"
        raise RunLocked(f"the lock of the store {where} kept changing hands; try again")

    def beat_forever(self) -> None:
        while not self._stop.wait(self.lease_s / 5):
            with self._lock:
                new = self._value()
                try:
                    if self.store.check_and_put(TABLE, ROW, CELL, self.value, new):
                        self.value = new
                except Exception:
                    pass  # the next beat tries again; the lease allows several misses

    def release(self) -> None:
        self._stop.set()
        with self._lock:
            self.store.check_and_put(TABLE, ROW, CELL, self.value, FREE)


@contextmanager
def store_lock(
    store_url: str, what: str, lease_s: float = LEASE_S, progress: Any = None
) -> Iterator[None]:
    """Hold the store's run lock for the block (see the module's docstring)."""
    with open_store(store_url) as store:
        lease = _Lease(store, what, lease_s)
        took_over = lease.acquire(store_url)
        if took_over and progress is not None:
            progress(f"store lock: {took_over}")
        beat = threading.Thread(target=lease.beat_forever, name="store-lock", daemon=True)
        beat.start()
        try:
            yield
        finally:
            try:
                lease.release()
            except Exception as exc:
                # Never in place of the run's own outcome (a store gone mid-publish must
                # fail with its own line): an unreleased lease is stale once this process
                # ends, and the next run takes it over.
                if progress is not None:
                    progress(f"store lock: not released ({type(exc).__name__}); stale now")
            beat.join(timeout=5)
