"""Sample-crawl generator and truth scoring (crawldedup_demo)."""

from __future__ import annotations

import datetime as dt
import gzip
import hashlib
import itertools
import json
import os
import re
import subprocess
import sys
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crawldedup_demo import (
    NEGATIVE_KINDS,
    QUARANTINE_REASONS,
    TRANSFORMS,
    SampleSummary,
    TruthRecord,
    canonical_time,
    derived_id,
    false_positive_pairs_by_negative,
    generate_sample,
    groups_from_verdicts,
    load_quarantine_expected,
    load_truth,
    pairwise_scores,
    recall_by_transform,
    write_truth,
)
from crawldedup_demo.generator import _cosine, _normalize, _seed_keys, _terms

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "demo"
START = dt.date(2026, 11, 1)
DAYS = [f"{START + dt.timedelta(days=i):%Y-%m-%d}" for i in range(3)]


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> SampleSummary:
    return generate_sample(tmp_path_factory.mktemp("sample"), originals_per_day=30)


def _read_file(path: Path) -> Iterator[dict[str, Any]]:
    """Records of one valid input file, WARC ids derived the pipeline's way."""
    name = path.name
    if name.endswith(".jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            yield json.loads(line)
    elif name.endswith(".jsonl.gz"):
        for line in gzip.decompress(path.read_bytes()).decode("utf-8").splitlines():
            yield json.loads(line)
    elif name.endswith(".parquet"):
        pq = pytest.importorskip("pyarrow.parquet")
        for row in pq.read_table(path).to_pylist():
            yield {k: v for k, v in row.items() if v is not None}
    elif name.endswith(".warc.gz"):
        archive = pytest.importorskip("warcio.archiveiterator")
        with path.open("rb") as fh:
            for rec in archive.ArchiveIterator(fh):
                if rec.rec_type != "response":
                    continue
                url = rec.rec_headers.get_header("WARC-Target-URI")
                yield {
                    "id": derived_id(url, canonical_time(rec.rec_headers.get_header("WARC-Date"))),
                    "url": url,
                    "html": rec.content_stream().read().decode("utf-8"),
                    "fetched_at": rec.rec_headers.get_header("WARC-Date"),
                }
    else:
        raise AssertionError(f"unexpected file {path}")


def _valid_records(out: Path) -> dict[str, tuple[str, str, dict[str, Any]]]:
    """id -> (day, file name, record) over all valid files of the sample."""
    found: dict[str, tuple[str, str, dict[str, Any]]] = {}
    for folder in sorted(out.glob("dt=*")):
        day = folder.name.removeprefix("dt=")
        for path in sorted(folder.iterdir()):
            if path.name == "part-bad.jsonl":
                continue
            for rec in _read_file(path):
                assert rec["id"] not in found, f"id {rec['id']} appears twice"
                found[rec["id"]] = (day, path.name, rec)
    return found


def _fetched(value: str) -> dt.datetime:
    return dt.datetime.fromisoformat(value.replace("Z", "+00:00"))


# --------------------------------------------------------------------------- generator


def test_same_seed_same_bytes_other_seed_other_sample(tmp_path: Path) -> None:
    a = generate_sample(tmp_path / "a", originals_per_day=8)
    b = generate_sample(tmp_path / "b", originals_per_day=8)
    c = generate_sample(tmp_path / "c", originals_per_day=8, seed=8)
    files_a = sorted(p.relative_to(a.out_dir) for p in a.out_dir.rglob("*") if p.is_file())
    files_b = sorted(p.relative_to(b.out_dir) for p in b.out_dir.rglob("*") if p.is_file())
    assert files_a == files_b
    for rel in files_a:
        assert (a.out_dir / rel).read_bytes() == (b.out_dir / rel).read_bytes(), rel
    assert a.days == b.days
    assert a.truth_path.read_bytes() != c.truth_path.read_bytes()


def test_every_file_kind_is_written(sample: SampleSummary) -> None:
    listing = {d: sorted(p.name for p in (sample.out_dir / f"dt={d}").iterdir()) for d in DAYS}
    assert listing[DAYS[0]] == ["part-00000.jsonl", "part-00001.jsonl.gz"]
    assert listing[DAYS[1]] == [
        "part-00000.jsonl",
        "part-00001.jsonl.gz",
        "part-00002.parquet",
        "part-bad.jsonl",
    ]
    assert listing[DAYS[2]] == ["crawl-00000.warc.gz", "part-00000.jsonl", "part-00001.jsonl.gz"]
    for day in sample.days:
        assert all(n > 0 for n in day.files.values()), day.files
    assert (sample.out_dir / "truth.jsonl").is_file()
    assert (sample.out_dir / "quarantine_expected.json").is_file()


def test_truth_covers_every_valid_record(sample: SampleSummary) -> None:
    truth = load_truth(sample.truth_path)
    found = _valid_records(sample.out_dir)
    assert set(found) == set(truth)
    assert len(truth) == sample.records
    for doc_id, (day, name, rec) in found.items():
        t = truth[doc_id]
        assert (t.day, t.file, t.url) == (day, name, rec["url"])
        when = _fetched(rec["fetched_at"])
        assert when.tzinfo is not None
        assert when == _fetched(t.fetched_at or "")
        # Within the day in both China time and UTC.
        assert f"{when.astimezone(dt.UTC):%Y-%m-%d}" == day
        assert f"{when.astimezone(dt.timezone(dt.timedelta(hours=8))):%Y-%m-%d}" == day
        assert ("html" in rec) != ("content" in rec)
        if "html" in rec:
            assert "<article" in rec["html"] and "<h1>" in rec["html"]
        if name.endswith(".warc.gz"):
            fetch = f"{rec['url']}\n{canonical_time(rec['fetched_at'])}"
            assert doc_id == "u" + hashlib.md5(fetch.encode()).hexdigest()[:16]
    assert len({t.url for t in truth.values()}) == len(truth)
    html_share = sum("html" in rec for _, _, rec in found.values()) / len(found)
    assert 0.08 <= html_share <= 0.25


def test_truth_semantics(sample: SampleSummary) -> None:
    truth = load_truth(sample.truth_path)
    originals = {k: t for k, t in truth.items() if t.is_original}
    for t in truth.values():
        assert t.transform in (*TRANSFORMS, "original")
        assert t.negative in (*NEGATIVE_KINDS, None)
        if t.is_original:
            assert t.cluster == t.id
        else:
            src = originals[t.cluster]
            assert src.negative is None
            assert src.day <= t.day
            assert _fetched(t.fetched_at or "") > _fetched(src.fetched_at or "")
    copies = [t for t in truth.values() if not t.is_original]
    assert all(t.seed_reachable is not None for t in copies)
    assert all(t.seed_reachable is None for t in originals.values())
    # Most copies are findable by the seed cascade; a few are deliberately not.
    assert sum(bool(t.seed_reachable) for t in copies) >= 0.85 * len(copies)
    kinds = Counter(t.transform for t in truth.values() if not t.is_original)
    assert set(kinds) == set(TRANSFORMS)
    assert set(Counter(t.negative for t in truth.values() if t.negative)) == set(NEGATIVE_KINDS)
    assert sample.transforms == {k: kinds[k] for k in TRANSFORMS}
    # Reposts of day-1 articles also turn up on later days.
    assert any(t.day > DAYS[0] and truth[t.cluster].day == DAYS[0] for t in truth.values())
    plain = [t for t in originals.values() if t.negative is None]
    zh_share = sum(t.lang == "zh" for t in plain) / len(plain)
    assert 0.55 <= zh_share <= 0.85


def test_texts_look_like_the_contract(sample: SampleSummary) -> None:
    truth = load_truth(sample.truth_path)
    for doc_id, (_, _, rec) in _valid_records(sample.out_dir).items():
        t = truth[doc_id]
        if "content" not in rec:
            continue
        text = rec["content"]
        if t.negative == "short_text":
            assert 20 <= len(text) <= 80
        elif t.is_original and t.negative is None:
            assert 300 <= len(text) <= 2500, len(text)
            if t.lang == "zh":
                # Real sentences: mostly Chinese characters, ending in full stops.
                assert len(re.findall(r"[\u4e00-\u9fff]", text)) > 0.6 * len(text)
                assert text.count("。") >= 3


def test_bad_records_and_expected_quarantine(sample: SampleSummary) -> None:
    expected = load_quarantine_expected(sample.quarantine_path)
    assert expected["total"] == {r: 1 for r in QUARANTINE_REASONS}
    assert expected["by_day"][DAYS[1]] == {r: 1 for r in QUARANTINE_REASONS}
    assert expected["by_day"][DAYS[0]] == {r: 0 for r in QUARANTINE_REASONS}
    lines = (sample.out_dir / f"dt={DAYS[1]}" / "part-bad.jsonl").read_text("utf-8").splitlines()
    assert len(lines) == 5
    truth = load_truth(sample.truth_path)
    reasons: list[str] = []
    for line in lines:
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            reasons.append("bad_json")
            continue
        if not any(k in rec for k in ("title", "content", "html")):
            reasons.append("no_text")
        elif not isinstance(rec.get("content"), str):
            reasons.append("wrong_type")
        elif len(rec["content"].encode("utf-8")) > 2_000_000:
            assert len(rec["content"]) > 2_000_000  # too large in characters as well
            reasons.append("too_large")
        else:
            # Same id as a valid record of that day that comes earlier in file order.
            assert truth[rec["id"]].day == DAYS[1]
            assert truth[rec["id"]].file == "part-00000.jsonl"
            reasons.append("duplicate_id")
    assert sorted(reasons) == sorted(QUARANTINE_REASONS)


def test_truth_is_consistent_with_the_seed_keys(sample: SampleSummary) -> None:
    """Different clusters sharing a seed key stay below the cosine bar; hard negatives
    really share what they claim to share; copies stay close to their original."""
    truth = load_truth(sample.truth_path)
    texts = {
        k: (rec.get("title"), rec["content"])
        for k, (_, _, rec) in _valid_records(sample.out_dir).items()
        if "content" in rec
    }
    by_key: dict[str, list[str]] = defaultdict(list)
    for doc_id, (title, text) in texts.items():
        for key in _seed_keys(title, text):
            by_key[key].append(doc_id)
    for ids in by_key.values():
        for a, b in itertools.combinations(ids, 2):
            if truth[a].cluster != truth[b].cluster:
                assert _cosine(_terms(texts[a][1]), _terms(texts[b][1])) < 0.9, (a, b)

    boiler: dict[str, set[str]] = defaultdict(set)
    for doc_id, (_, text) in texts.items():
        if truth[doc_id].negative == "shared_boilerplate":
            norm = _normalize(text)
            boiler[truth[doc_id].lang or ""].add(norm[:100] + "|" + norm[-100:])
    assert boiler and all(len(v) == 1 for v in boiler.values())

    titles = Counter(texts[k][0] for k in texts if truth[k].negative == "generic_title")
    assert max(titles.values()) >= 2

    for doc_id, (_, text) in texts.items():
        t = truth[doc_id]
        if t.is_original or t.cluster not in texts:
            continue
        original = texts[t.cluster][1]
        if t.transform == "whitespace_punct":
            assert text != original
            assert _normalize(text) == _normalize(original)
        elif t.transform in ("exact_mirror", "retitle"):
            assert text == original
        elif t.transform == "small_edit":
            assert text != original
            assert _cosine(_terms(text), _terms(original)) > 0.95
        elif t.transform == "source_line":
            assert _normalize(text).endswith(_normalize(original))
        elif t.transform == "footer":
            assert _normalize(text).startswith(_normalize(original))


def test_html_pages_extract_to_the_article(sample: SampleSummary) -> None:
    trafilatura = pytest.importorskip("trafilatura")
    truth = load_truth(sample.truth_path)
    found = _valid_records(sample.out_dir)
    checked = 0
    for doc_id, (_, _, rec) in found.items():
        t = truth[doc_id]
        if t.transform != "html_template" or "content" not in found[t.cluster][2]:
            continue
        original = found[t.cluster][2]
        doc = trafilatura.bare_extraction(rec["html"], url=rec["url"], with_metadata=True)
        data = doc.as_dict() if hasattr(doc, "as_dict") else doc
        assert data["title"] == original.get("title")
        sim = _cosine(_terms(data["text"] or ""), _terms(original["content"]))
        assert sim > 0.9, (doc_id, sim)
        # Sidebar and footer are boilerplate and must not come through.
        assert "Copyright" not in data["text"] and "©" not in data["text"]
        checked += 1
    assert checked >= 3


def test_bad_arguments() -> None:
    with pytest.raises(ValueError):
        generate_sample(Path("/nonexistent"), days=0)


# --------------------------------------------------------------------------- truth I/O


def test_derived_id_is_per_fetch() -> None:
    url = "https://www.example.com/a/1.html"
    first, recrawl = "2026-11-01T08:00:00.000000Z", "2026-11-02T08:00:00.000000Z"
    key = f"{url}\n{first}".encode()
    assert derived_id(url, first) == "u" + hashlib.md5(key).hexdigest()[:16]
    assert len(derived_id(url, first)) == 17
    assert derived_id(url, recrawl) != derived_id(url, first)


def test_truth_roundtrip_and_duplicates(tmp_path: Path) -> None:
    recs = [
        TruthRecord("a", "2026-11-01", "https://x/a", "a", "original"),
        TruthRecord("b", "2026-11-01", "https://y/b", "a", "footer", None, "zh", "t", "f"),
    ]
    path = tmp_path / "truth.jsonl"
    assert write_truth(path, recs) == 2
    assert load_truth(path) == {"a": recs[0], "b": recs[1]}
    path.write_text(path.read_text() + path.read_text().splitlines()[0] + "\n")
    with pytest.raises(ValueError):
        load_truth(path)


def test_groups_from_verdicts() -> None:
    lines = [
        '{"id": "a", "verdict": "unique", "rule": null, "group": "a"}',
        "",
        '{"id": "b", "verdict": "duplicate", "rule": "content_md5", "group": "a"}',
    ]
    assert groups_from_verdicts(lines) == {"a": "a", "b": "a"}


# --------------------------------------------------------------------------- scoring


def _truth(*rows: tuple[str, str, str, str | None]) -> dict[str, TruthRecord]:
    """(id, cluster, transform, negative) rows."""
    return {i: TruthRecord(i, "2026-11-01", f"https://h/{i}", c, t, n) for i, c, t, n in rows}


TRUTH = _truth(
    ("a", "a", "original", None),
    ("b", "a", "footer", None),
    ("c", "a", "retitle", None),
    ("d", "d", "original", None),
    ("e", "d", "footer", None),
    ("f", "f", "original", "generic_title"),
    ("g", "g", "original", "generic_title"),
    ("h", "h", "original", "short_text"),
)  # true pairs: ab ac bc de = 4


def test_perfect_prediction() -> None:
    s = pairwise_scores({k: v.cluster for k, v in TRUTH.items()}, TRUTH)
    assert (s.precision, s.recall, s.f1, s.tp, s.fp, s.fn) == (1.0, 1.0, 1.0, 4, 0, 0)
    assert (s.judged, s.unknown, s.missing) == (8, 0, 0)


def test_no_predicted_pairs() -> None:
    s = pairwise_scores({k: k for k in TRUTH}, TRUTH)
    assert (s.precision, s.recall, s.f1, s.tp, s.fp, s.fn) == (1.0, 0.0, 0.0, 0, 0, 4)


def test_no_pairs_at_all() -> None:
    truth = _truth(("x", "x", "original", None), ("y", "y", "original", None))
    s = pairwise_scores({"x": "x", "y": "y"}, truth)
    assert (s.precision, s.recall, s.f1) == (1.0, 1.0, 1.0)
    empty = pairwise_scores({}, {})
    assert (empty.precision, empty.recall, empty.tp, empty.fp, empty.fn) == (1.0, 1.0, 0, 0, 0)


def test_everything_in_one_group() -> None:
    s = pairwise_scores({k: "z" for k in TRUTH}, TRUTH)
    assert (s.tp, s.fp, s.fn) == (4, 28 - 4, 0)
    assert s.precision == pytest.approx(4 / 28)
    assert s.recall == 1.0
    assert s.f1 == pytest.approx(2 * (4 / 28) / (1 + 4 / 28))


def test_missing_and_unknown_docs() -> None:
    predicted = {"a": "a", "b": "a", "d": "d", "zz": "a", "yy": "a"}
    s = pairwise_scores(predicted, TRUTH)
    # Judged: a b d; pairs ab (tp). True pairs 4 -> fn 3. zz/yy are unknown, ignored.
    assert (s.tp, s.fp, s.fn) == (1, 0, 3)
    assert (s.judged, s.unknown, s.missing) == (3, 2, 5)


def test_recall_by_transform() -> None:
    predicted = {"a": "a", "b": "a", "c": "c", "d": "d", "e": "d", "f": "f", "g": "g", "h": "h"}
    r = recall_by_transform(predicted, TRUTH)
    assert set(r) == set(TRANSFORMS)
    assert (r["footer"].hits, r["footer"].total, r["footer"].value) == (2, 2, 1.0)
    assert (r["retitle"].hits, r["retitle"].total, r["retitle"].value) == (0, 1, 0.0)
    assert r["small_edit"].total == 0 and r["small_edit"].value == 1.0
    # Original not judged (only a later day's verdicts): its group is its own id.
    later_day = recall_by_transform({"b": "a", "c": "a", "e": "x"}, TRUTH)
    assert later_day["retitle"].hits == 1
    assert (later_day["footer"].hits, later_day["footer"].total) == (1, 2)


def test_false_positive_pairs_by_negative() -> None:
    # f, g (generic_title) wrongly merged with each other and with d's cluster.
    predicted = {"a": "a", "b": "a", "c": "a", "d": "d", "e": "d", "f": "d", "g": "d", "h": "h"}
    out = false_positive_pairs_by_negative(predicted, TRUTH)
    # Group d: d e f g. Cross-cluster pairs: df dg ef eg fg = 5, all touch generic_title.
    assert out == {
        "generic_title": 5,
        "shared_boilerplate": 0,
        "short_text": 0,
        "template_page": 0,
        "none": 0,
    }
    assert pairwise_scores(predicted, TRUTH).fp == 5
    merged = {k: "z" for k in TRUTH}
    everything = false_positive_pairs_by_negative(merged, TRUTH)
    assert everything["short_text"] == 7  # h against each of the 7 others
    assert everything["none"] == 6  # {a,b,c} x {d,e}
    assert false_positive_pairs_by_negative({}, TRUTH)["none"] == 0


def _brute(predicted: dict[str, str], truth: dict[str, TruthRecord]) -> tuple[int, int, int]:
    ids = sorted(truth)
    tp = fp = fn = 0
    for a, b in itertools.combinations(ids, 2):
        same_true = truth[a].cluster == truth[b].cluster
        same_pred = a in predicted and b in predicted and predicted[a] == predicted[b]
        tp += same_true and same_pred
        fp += same_pred and not same_true
        fn += same_true and not same_pred
    return tp, fp, fn


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 5), st.integers(0, 4), st.booleans(), st.booleans()),
        min_size=0,
        max_size=18,
    )
)
def test_scores_match_brute_force(rows: list[tuple[int, int, bool, bool]]) -> None:
    truth: dict[str, TruthRecord] = {}
    predicted: dict[str, str] = {}
    for i, (cluster, group, judged, negative) in enumerate(rows):
        doc = f"d{i}"
        truth[doc] = TruthRecord(
            doc, "2026-11-01", f"u{i}", f"c{cluster}", "footer", "short_text" if negative else None
        )
        if judged:
            predicted[doc] = f"g{group}"
    s = pairwise_scores(predicted, truth)
    assert (s.tp, s.fp, s.fn) == _brute(predicted, truth)
    fp_by = false_positive_pairs_by_negative(predicted, truth)
    brute_neg = sum(
        1
        for a, b in itertools.combinations(sorted(predicted), 2)
        if predicted[a] == predicted[b]
        and truth[a].cluster != truth[b].cluster
        and (truth[a].negative or truth[b].negative)
    )
    assert fp_by["short_text"] == brute_neg
    assert fp_by["short_text"] + fp_by["none"] == s.fp


def test_normalization_helper_matches_the_seed() -> None:
    text = "【转载】Ａｂｃ  １２３，中文！"
    assert _normalize(text) == "转载abc123中文"
    assert unicodedata.normalize("NFKC", "１") == "1"


# --------------------------------------------------------------------------- text tables

# sha256 of the module's sample (seed 7, 3 days, 30 originals a day: every record, parsed,
# plus the truth, the expected quarantine and the bad lines) and of a topics day, measured
# before the text tables moved from Python literals to sample/data/*.json. A change on
# purpose to the generator or its tables changes them: then update both (last: WARC
# records' ids derived from url and fetch time, 2026-12-01).
SAMPLE_SHA256 = "b37e2a7ffbea34394737052267ad8f5f4d55bd7a7693d68975eb5bfcde866b8f"
TOPICS_SHA256 = "e62c833758bb44f191dbccacc9c89c8e847dfdddc42edbf725794da2cf4aa84a"


def test_sample_and_topic_pages_are_the_pinned_ones(sample: SampleSummary) -> None:
    from crawldedup_demo.topics import generate_pages

    h = hashlib.sha256()
    records = _valid_records(sample.out_dir)
    h.update(json.dumps(records, sort_keys=True, ensure_ascii=False).encode())
    for name in ("truth.jsonl", "quarantine_expected.json", "dt=2026-11-02/part-bad.jsonl"):
        h.update((sample.out_dir / name).read_bytes())
    assert h.hexdigest() == SAMPLE_SHA256
    pages = generate_pages(seed=7, per_topic=20, unrelated=40, day="2026-11-01")
    blob = json.dumps([p.__dict__ for p in pages], sort_keys=True, ensure_ascii=False)
    assert hashlib.sha256(blob.encode()).hexdigest() == TOPICS_SHA256


def test_text_tables_are_read_on_first_use_and_once_and_stay_out_of_the_wheel() -> None:
    import fnmatch
    import tomllib
    from importlib import resources

    from crawldedup_demo import _data

    folder = resources.files("crawldedup_demo") / "data"
    assert Path(str(folder)) == DEMO / "crawldedup_demo" / "data"
    files = sorted(p.name for p in folder.iterdir() if p.name.endswith(".json"))
    assert files == sorted(f"{name}.json" for name in _data.DATA_FILES)
    # The wheel is the engine: neither the demo package nor its tables are listed.
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    included = setuptools["packages"]["find"]["include"]
    for module in ("crawldedup_demo", "crawldedup_demo.generator", "demo.crawldedup_demo"):
        assert not any(fnmatch.fnmatch(module, g) for g in included), module
    assert set(setuptools["package-data"]) <= {"crawldedup", "crawldedup_airflow"}
    assert not any(g.endswith(".json") for g in setuptools["package-data"]["crawldedup"])
    for name in _data.DATA_FILES:
        assert _data.load(name) is _data.load(name)  # parsed once
    # Importing the sample package reads nothing.
    code = (
        "import crawldedup_demo, crawldedup_demo.corpus, crawldedup_demo.topics\n"
        "from crawldedup_demo import _data\n"
        "print(_data.load.cache_info().currsize)"
    )
    proc = _demo_python("-c", code)
    assert proc.returncode == 0 and proc.stdout.strip() == "0", proc.stderr


# --------------------------------------------------------------------------- command line


def _demo_python(*args: str) -> subprocess.CompletedProcess[str]:
    """``python ARGS`` with demo/ on PYTHONPATH, as scripts/demo.sh runs it."""
    env = {**os.environ, "PYTHONPATH": str(DEMO)}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env)


def test_sample_command_writes_the_sample_and_prints_its_summary(tmp_path: Path) -> None:
    out = tmp_path / "crawl"
    proc = _demo_python(
        "-m", "crawldedup_demo", "sample", "--out", str(out), "--days", "1", "--start", DAYS[0]
    )
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["out_dir"] == str(out) and summary["truth_path"] == str(out / "truth.jsonl")
    assert [d["day"] for d in summary["days"]] == [DAYS[0]]
    assert sorted(p.name for p in (out / f"dt={DAYS[0]}").iterdir()) == [
        "part-00000.jsonl",
        "part-00001.jsonl.gz",
    ]


@pytest.mark.parametrize(
    "args",
    [
        ["sample", "--days", "1"],  # --out missing
        ["sample", "--out", "x", "--start", "2026-13-01"],
        ["demo", "--days", "three"],
        ["demo", "--set", "no-equals-sign"],
        ["nonsense"],
    ],
)
def test_bad_flags_exit_2_with_one_line(args: list[str]) -> None:
    proc = _demo_python("-m", "crawldedup_demo", *args)
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert proc.stderr.startswith("crawldedup"), proc.stderr


def test_the_engine_cli_has_no_sample_or_demo_command() -> None:
    from crawldedup.cli import main

    assert main(["sample", "--out", "x"]) == 2
    assert main(["demo"]) == 2
