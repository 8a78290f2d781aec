"""A broken install or machine fails the run; only a bad record is quarantined (issue 12).

With lxml_html_clean missing (what a stock pip 23 leaves after ``pip install .``),
trafilatura cannot be imported, and that used to quarantine every HTML record as
``extraction_failed`` while the run exited 0. The missing module is provoked for real
here: a child interpreter gets a ``sys.meta_path`` finder that refuses the module, so
the import system raises the same ModuleNotFoundError an absent package raises, and
lxml's own ``lxml.html.clean`` shim raises its own ImportError.
"""

from __future__ import annotations

import errno
import gzip
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from crawldedup.config import Config
from crawldedup.ingest.readers import RawRecord, is_environment_error, read_file
from crawldedup.ingest.records import Quarantined, prepare

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
DAY = "2026-11-02"
MESSAGE = "ModuleNotFoundError: HTML extraction needs lxml_html_clean (pip install lxml_html_clean)"

# A real-looking news page (also what scripts/check_stock_install.sh runs).
ARTICLE_HTML = (ROOT / "tests" / "data" / "news_article.html").read_text(encoding="utf-8")


def _html_record(html: str = ARTICLE_HTML) -> RawRecord:
    data = {"id": "h1", "url": "https://ledger.example/local/park", "html": html}
    return RawRecord("day.jsonl", 1, data, json.dumps(data))


# --- the missing module, for real, in a child interpreter ---------------------------

BLOCKER = """
import sys

class _Missing:
    '''Refuses the blocked modules as an absent package would: ModuleNotFoundError.'''
    def find_spec(self, name, path=None, target=None):
        for blocked in BLOCKED:
            if name == blocked or name.startswith(blocked + "."):
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, _Missing())
"""


def _child(blocked: tuple[str, ...], body: str, *args: str) -> dict[str, Any]:
    """Run ``body`` with ``blocked`` unimportable; it prints one JSON object last."""
    code = f"BLOCKED = {blocked!r}\n{BLOCKER}\n{textwrap.dedent(body)}"
    proc = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    out: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    out["stderr"] = proc.stderr
    return out


PREPARE = """
import json, sys
from crawldedup.config import Config
from crawldedup.ingest.readers import RawRecord
from crawldedup.ingest.records import Quarantined, prepare

html = open(sys.argv[1], encoding="utf-8").read()
cfg = Config().replace(**{"extract.engine": "trafilatura"})
plain = RawRecord("d.jsonl", 1, {"id": "p1", "title": "T", "content": "some plain text"}, "{}")
out = {"plain": type(prepare(plain, cfg, "2026-11-02")).__name__}
data = {"id": "h1", "url": "https://ledger.example/local/park", "html": html}
try:
    res = prepare(RawRecord("d.jsonl", 2, data, json.dumps(data)), cfg, "2026-11-02")
    out["html"] = res.reason if isinstance(res, Quarantined) else "document"
except BaseException as exc:
    out["raised"] = type(exc).__name__
    out["message"] = str(exc)
    out["name"] = getattr(exc, "name", None)
print(json.dumps(out))
"""


@pytest.fixture()
def article(tmp_path: Path) -> Path:
    path = tmp_path / "article.html"
    path.write_text(ARTICLE_HTML, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "blocked",
    [
        ("lxml_html_clean",),  # the package a stock pip leaves out
        ("lxml.html.clean",),  # the module justext imports (lxml's shim over it)
        ("lxml_html_clean", "lxml.html.clean"),
    ],
)
def test_missing_lxml_html_clean_raises_instead_of_quarantining(
    blocked: tuple[str, ...], article: Path
) -> None:
    out = _child(blocked, PREPARE, str(article))
    assert out["plain"] == "dict", "a plain record needs no HTML extraction"
    assert "html" not in out, f"the HTML record was turned into {out.get('html')!r}"
    assert out["raised"] == "ModuleNotFoundError"
    assert out["message"] == "HTML extraction needs lxml_html_clean (pip install lxml_html_clean)"
    assert out["name"] == "lxml_html_clean"


def test_missing_trafilatura_is_named(article: Path) -> None:
    out = _child(("trafilatura",), PREPARE, str(article))
    assert out["raised"] == "ModuleNotFoundError"
    assert out["message"] == "HTML extraction needs trafilatura (pip install trafilatura)"


def test_the_lxml_shim_import_error_is_reported_as_lxml_html_clean_missing() -> None:
    """lxml's own ``lxml.html.clean`` raises a nameless ImportError without the package."""
    out = _child(
        ("lxml_html_clean",),
        """
        import json
        from crawldedup.ingest.records import _extraction_import_error
        try:
            import lxml.html.clean
        except ImportError as exc:
            shim = str(exc)
            err = _extraction_import_error(exc)
        print(json.dumps({"shim": shim, "type": type(err).__name__, "message": str(err)}))
        """,
    )
    assert "lxml_html_clean" in out["shim"]
    assert f"{out['type']}: {out['message']}" == MESSAGE


def test_worker_file_loop_raises_and_root_cause_names_the_module(tmp_path: Path) -> None:
    """The executors' loop over a file raises; the traceback it reports yields one line,
    naming the file and the position (issue 16)."""
    day = tmp_path / f"dt={DAY}"
    day.mkdir()
    plain = {"id": "p1", "url": "https://a.example/1", "title": "T", "content": "plain words"}
    html = {"id": "h1", "url": "https://ledger.example/local/park", "html": ARTICLE_HTML}
    (day / "part-0.jsonl").write_text(json.dumps(plain) + "\n" + json.dumps(html) + "\n")
    out = _child(
        ("lxml_html_clean",),
        """
        import json, sys, traceback
        from crawldedup.config import Config
        from crawldedup.ingest.readers import InputFileError
        from crawldedup.pipeline.day_input import _prepare_file
        kinds = []
        try:
            cfg = Config().replace(**{"extract.engine": "trafilatura"})
            for row in _prepare_file(sys.argv[1], cfg, "2026-11-02"):
                kinds.append(row["kind"] + ":" + str(row.get("reason")))
            tb = cause = None
        except InputFileError as exc:
            tb = traceback.format_exc()
            cause = type(exc.__cause__).__name__
        print(json.dumps({"kinds": kinds, "traceback": tb, "cause": cause}))
        """,
        str(day / "part-0.jsonl"),
    )
    assert out["kinds"] == ["d:None"], "the HTML record must not become a quarantine entry"
    assert out["traceback"], "the file loop did not raise"
    assert out["cause"] == "ModuleNotFoundError"
    # The one line names the file and the record's position as well as the cause.
    line = f"InputFileError: {day / 'part-0.jsonl'} (position 2): {MESSAGE}"

    from crawldedup.pipeline.stages import StageFailed, root_cause

    # What a failed mapInArrow task surfaces as on the driver: the worker's traceback
    # inside a PythonException, followed by the JVM's stack.
    worker = Exception(
        "An exception was thrown from the Python worker. Please see the stack trace below.\n"
        + out["traceback"]
        + "\n\nJVM stacktrace:\norg.apache.spark.SparkException: Job aborted due to stage "
        "failure: Task 0 in stage 3.0 failed 1 times\n"
        "\tat org.apache.spark.scheduler.DAGScheduler.failJobAndIndependentStages(...)\n"
    )
    assert root_cause(worker) == line
    assert str(StageFailed("fingerprint", worker)) == f"stage fingerprint failed: {line}"


def test_cli_run_exits_1_with_one_line_before_spark_starts(tmp_path: Path) -> None:
    """``crawldedup run`` on a broken install: exit 1, one line naming the module, and no
    JVM started (the preflight runs before the SparkSession is built)."""
    day = tmp_path / f"dt={DAY}"
    day.mkdir()
    html = {"id": "h1", "url": "https://ledger.example/local/park", "html": ARTICLE_HTML}
    (day / "part-0.jsonl").write_text(json.dumps(html) + "\n")
    out = _child(
        ("lxml_html_clean",),
        """
        import json, sys
        from pyspark import SparkContext
        from crawldedup import cli

        code = cli.main(["run", "--date", "2026-11-02", "--input", sys.argv[1],
                         "--home", sys.argv[2], "--set", "extract.engine=trafilatura"])
        print(json.dumps({"code": code, "jvm": SparkContext._gateway is not None}))
        """,
        str(day),
        str(tmp_path / "home"),
    )
    assert out["code"] == 1
    assert out["jvm"] is False
    last = out["stderr"].strip().splitlines()[-1]
    assert last == f"crawldedup: failed: stage fingerprint failed: {MESSAGE}"
    assert "Traceback" not in out["stderr"]


# --- with the real install: a bad record is still quarantined ---------------------


def test_a_real_news_page_is_extracted() -> None:
    out = prepare(_html_record(), Config().validate(), DAY)
    assert isinstance(out, dict)
    assert out["title"] == "City council approves new riverside park"


# The engine whose install and failures these tests provoke (the optional extra).
TRAFILATURA = Config().replace(**{"extract.engine": "trafilatura"})


def _failing_extraction(monkeypatch: pytest.MonkeyPatch, exc: BaseException) -> None:
    # trafilatura 2.3 swallows every malformed page tried (NUL bytes, lone surrogates,
    # 200 000 nested divs, bad URLs and dates), so the page's failure is stood in for.
    import trafilatura

    def bare_extraction(*args: Any, **kwargs: Any) -> Any:
        raise exc

    monkeypatch.setattr(trafilatura, "bare_extraction", bare_extraction)


@pytest.mark.parametrize(
    "exc",
    [
        SyntaxError("Opening and ending tag mismatch: b line 1 and a"),  # lxml's are these
        ValueError("Unicode strings with encoding declaration are not supported"),
        RecursionError("maximum recursion depth exceeded"),
        UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"),
        gzip.BadGzipFile("Not a gzipped file"),  # an OSError without errno: the bytes
        TypeError("expected string or bytes-like object"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_a_page_that_breaks_extraction_is_still_quarantined(
    monkeypatch: pytest.MonkeyPatch, exc: BaseException
) -> None:
    _failing_extraction(monkeypatch, exc)
    out = prepare(_html_record(), TRAFILATURA, DAY)
    assert isinstance(out, Quarantined)
    assert out.reason == "extraction_failed"
    assert out.detail.startswith(type(exc).__name__)


@pytest.mark.parametrize(
    "exc",
    [
        ModuleNotFoundError("No module named 'lxml_html_clean'", name="lxml_html_clean"),
        ImportError("cannot import name 'Cleaner'"),
        MemoryError(),
        OSError(errno.ENOSPC, "No space left on device"),
        OSError(errno.EMFILE, "Too many open files"),
    ],
    ids=lambda e: f"{type(e).__name__}-{getattr(e, 'errno', None)}",
)
def test_an_environment_error_during_extraction_propagates(
    monkeypatch: pytest.MonkeyPatch, exc: BaseException
) -> None:
    _failing_extraction(monkeypatch, exc)
    with pytest.raises(type(exc)):
        prepare(_html_record(), TRAFILATURA, DAY)


def test_is_environment_error() -> None:
    assert is_environment_error(ModuleNotFoundError("x"))
    assert is_environment_error(MemoryError())
    assert is_environment_error(FileNotFoundError(errno.ENOENT, "gone"))
    assert is_environment_error(OSError(errno.EIO, "Input/output error"))
    assert not is_environment_error(gzip.BadGzipFile("Not a gzipped file"))
    assert not is_environment_error(OSError("Couldn't deserialize thrift"))
    assert not is_environment_error(ValueError("bad"))
    assert not is_environment_error(RecursionError())


# --- the readers: a bad file is quarantined, a vanished one fails ------------------


def test_a_corrupt_parquet_file_is_still_quarantined(tmp_path: Path) -> None:
    bad = tmp_path / "part-0.parquet"
    bad.write_bytes(b"PAR1" + b"\0" * 64 + b"PAR1")
    [rec] = list(read_file(str(bad), 1 << 20))
    assert rec.error == "bad_file"


def test_a_broken_warc_is_still_quarantined(tmp_path: Path) -> None:
    path = tmp_path / "part-0.warc.gz"
    body = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" + ARTICLE_HTML.encode()
    record = (
        b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: https://ledger.example/p\r\n"
        b"WARC-Date: 2026-11-02T08:00:00Z\r\nContent-Type: application/http; msgtype=response\r\n"
        + f"Content-Length: {len(body)}\r\n\r\n".encode()
        + body
        + b"\r\n\r\n"
    )
    path.write_bytes(gzip.compress(record) + gzip.compress(b"NOT A WARC\r\nfoo: bar\r\n\r\n"))
    recs = list(read_file(str(path), 1 << 20))
    assert recs[0].error is None and recs[0].data is not None
    assert [r.error for r in recs[1:]] == ["bad_warc"]


def test_a_parquet_file_that_vanished_fails_instead_of_quarantining(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        list(read_file(str(tmp_path / "gone.parquet"), 1 << 20))
