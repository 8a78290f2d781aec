"""The store's retry helper, with functions that really fail N times (no HBase)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator

import pytest

from crawldedup.store import StoreError, open_store
from crawldedup.store.retry import Retry


class Flaky:
    """Fails with ``exc`` on its first ``failures`` calls, then returns its call count."""

    def __init__(self, failures: int, exc: Callable[[], BaseException] = ConnectionError) -> None:
        self.failures, self.exc, self.calls = failures, exc, 0

    def __call__(self) -> int:
        self.calls += 1
        if self.calls <= self.failures:
            raise self.exc()
        return self.calls


def make_retry(retries: int = 5, backoff_s: float = 0.5) -> tuple[Retry, list[float], list[str]]:
    slept: list[float] = []
    reconnects: list[str] = []
    retry = Retry(
        "hbase h:9090",
        (ConnectionError, EOFError),
        retries,
        backoff_s,
        on_retry=lambda exc: reconnects.append(type(exc).__name__),
        sleep=slept.append,
    )
    return retry, slept, reconnects


def test_succeeds_after_transient_failures_with_exponential_backoff() -> None:
    retry, slept, reconnects = make_retry()
    fn = Flaky(3)
    assert retry.call("get docs", fn) == 4
    assert slept == [0.5, 1.0, 2.0]
    assert reconnects == ["ConnectionError"] * 3


def test_backoff_is_capped() -> None:
    retry, slept, _ = make_retry(retries=8, backoff_s=3.0)
    retry.call("put x", Flaky(5))
    assert slept == [3.0, 6.0, 10.0, 10.0, 10.0]


def test_gives_up_after_the_retries_with_a_store_error() -> None:
    retry, slept, reconnects = make_retry(retries=2)
    fn = Flaky(10)
    with pytest.raises(StoreError) as info:
        retry.call("get docs", fn)
    assert str(info.value) == ("hbase h:9090 get docs failed after 2 retries: ConnectionError: ")
    assert isinstance(info.value.__cause__, ConnectionError)
    assert fn.calls == 3 and len(slept) == 2 and len(reconnects) == 2


def test_no_retries_means_one_attempt() -> None:
    retry, slept, _ = make_retry(retries=0)
    fn = Flaky(1)
    with pytest.raises(StoreError, match="failed after 0 retries"):
        retry.call("scan t", fn)
    assert fn.calls == 1 and slept == []


def test_other_errors_pass_through_at_once() -> None:
    retry, slept, reconnects = make_retry()
    fn = Flaky(1, lambda: KeyError("no such column"))
    with pytest.raises(KeyError):
        retry.call("get docs", fn)
    assert fn.calls == 1 and slept == [] and reconnects == []


def test_each_call_starts_afresh() -> None:
    retry, slept, _ = make_retry(retries=2)
    retry.call("a", Flaky(2))
    retry.call("b", Flaky(2))  # the first call's failures do not count here
    assert slept == [0.5, 1.0, 0.5, 1.0]


def test_retries_are_logged(caplog: pytest.LogCaptureFixture) -> None:
    retry, _, _ = make_retry()
    with caplog.at_level(logging.WARNING, logger="crawldedup.store.retry"):
        retry.call("put docs", Flaky(1, lambda: EOFError("TSocket read 0 bytes")))
    assert caplog.messages == ["hbase h:9090 put docs: TSocket read 0 bytes (retry 1 in 0.5s)"]


def test_attempts_let_a_generator_resume_after_its_last_row() -> None:
    """The scan pattern: the source drops the connection twice; no row is lost or repeated."""
    retry, slept, _ = make_retry()
    rows = [f"r{i}" for i in range(10)]
    drops = {3, 7}  # the source fails before serving these positions, once each

    def source(start: int) -> Iterator[str]:
        for i in range(start, len(rows)):
            if i in drops:
                drops.discard(i)
                raise ConnectionError(f"dropped at {i}")
            yield rows[i]

    def scan() -> Iterator[str]:
        pos = 0
        for attempt in retry.attempts("scan t"):
            with attempt:
                for row in source(pos):
                    pos += 1
                    yield row

    assert list(scan()) == rows
    assert slept == [0.5, 1.0]


def test_closing_a_generator_mid_attempt_is_not_retried() -> None:
    retry, slept, _ = make_retry()

    def scan() -> Iterator[int]:
        for attempt in retry.attempts("scan t"):
            with attempt:
                yield from range(100)

    it = scan()
    assert next(it) == 0
    it.close()  # GeneratorExit is no transport error
    assert slept == []


def test_hbase_store_takes_its_retry_settings_from_the_url() -> None:
    """Nothing listens on port 1: every connect is refused, a real transport error."""
    store = open_store("hbase://127.0.0.1:1/p?retries=2&backoff_s=0.01&timeout_ms=500")
    with pytest.raises(StoreError, match=r"^hbase 127\.0\.0\.1:1 get docs failed after 2 retries"):
        store.get("docs", ["x"])
    assert store.stats.retries == 2
    with pytest.raises(StoreError, match=r"^hbase 127\.0\.0\.1:1 scan docs failed after 2 retries"):
        list(store.scan("docs"))
    assert store.stats.retries == 4 and store.stats.round_trips == 0
