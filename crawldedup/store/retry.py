"""Retries with exponential backoff for store calls that fail on the transport.

One loop for every retried call: a whole call (``Retry.call``) or a block that must
stay inline because it yields, like a scan that resumes after its last row::

    for attempt in retry.attempts(f"scan {table}"):
        with attempt:
            ...  # may yield; a transient error here is retried

A transient error (one of ``transient``) is logged, counted by ``on_retry`` (which
also drops the broken connection, so the next attempt reconnects), slept over
(``backoff_s``, doubled per retry up to ``max_backoff_s``) and retried up to
``retries`` times; after that it becomes a :class:`StoreError` naming the call.
Any other error passes through at once. Retrying is only safe for idempotent calls.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from types import TracebackType
from typing import TypeVar

from crawldedup.store.base import StoreError

T = TypeVar("T")

log = logging.getLogger(__name__)


def _ignore(exc: BaseException) -> None:
    return None


@dataclass
class Retry:
    """How one store client retries: ``name`` prefixes messages (e.g. ``hbase h:9090``)."""

    name: str
    transient: tuple[type[BaseException], ...]
    retries: int = 5
    backoff_s: float = 0.5
    max_backoff_s: float = 10.0
    on_retry: Callable[[BaseException], None] = _ignore
    sleep: Callable[[float], None] = field(default=time.sleep, repr=False)

    def attempts(self, what: str) -> Iterator[Attempt]:
        """Attempts at ``what`` until one leaves its ``with`` block without a transient error."""
        run = _Run(self, what)
        while not run.done:
            yield Attempt(run)

    def call(self, what: str, fn: Callable[[], T]) -> T:
        """``fn()``, retried on transient errors."""
        for attempt in self.attempts(what):
            with attempt:
                return fn()
        raise AssertionError("unreachable: the last attempt returns or raises")


@dataclass
class _Run:
    """The state of one retried call, shared by its attempts."""

    retry: Retry
    what: str
    failures: int = 0
    done: bool = False
    delay: float = field(init=False)

    def __post_init__(self) -> None:
        self.delay = self.retry.backoff_s


class Attempt:
    """One try: a context manager that swallows a transient error it may retry."""

    def __init__(self, run: _Run) -> None:
        self._run = run

    def __enter__(self) -> Attempt:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool:
        run, retry = self._run, self._run.retry
        if exc is None:
            run.done = True
            return False
        if not isinstance(exc, retry.transient):
            run.done = True
            return False
        if run.failures == retry.retries:
            run.done = True
            raise StoreError(
                f"{retry.name} {run.what} failed after {retry.retries} retries: "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        run.failures += 1
        log.warning(
            "%s %s: %s (retry %d in %.1fs)", retry.name, run.what, exc, run.failures, run.delay
        )
        retry.on_retry(exc)
        retry.sleep(run.delay)
        run.delay = min(run.delay * 2, retry.max_backoff_s)
        return True
