"""A day stopped between its first publish write and its commit is marked incomplete in
the store: readers and later days refuse it with one line, and a rerun completes it. A
stage run on its own after a deploy fails in one line instead of mixing two versions. A
side stage (relevance) that fails leaves the day committed and reported. A retry of the
same run resumes after the stages it finished."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from crawldedup.cli import main
from crawldedup.config import Config
from crawldedup.day_state import IncompleteDay
from crawldedup.pipeline.context import DayContext
from crawldedup.pipeline.stages import run_stages
from crawldedup.stage_registry import DEDUP_STAGES
from tests.spark.test_stages import ARTICLE, OTHER, rec, verdicts, write_day

LIBRARY = Path(__file__).resolve().parents[2] / "config" / "topics.example.yaml"


@pytest.mark.exhaustive  # make test-all: a slow scenario (30-60 s)
def test_a_day_stopped_after_publishing_is_refused_until_rerun(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    cfg = Config().replace(**{"spark.shuffle_partitions": 4, "bloom.capacity_docs": 1000})
    days = {
        "2026-11-01": [rec("orig", ARTICLE, "2026-11-01T01:00:00Z", "网页判重方法")],
        "2026-11-02": [rec("copy", ARTICLE + "版权所有。", "2026-11-02T01:00:00Z", "乙")],
        "2026-11-03": [rec("new", OTHER, "2026-11-03T01:00:00Z", "丙")],
    }
    ctx = {
        d: DayContext(day=d, home=home, cfg=cfg, input_dir=write_day(tmp_path / "in", d, r))
        for d, r in days.items()
    }
    run_stages(spark, ctx["2026-11-01"])
    # Day 2 stops after publish wrote everything but before the commit (a kill there).
    upto = DEDUP_STAGES[: DEDUP_STAGES.index("commit")]
    run_stages(spark, ctx["2026-11-02"], stages=upto)

    code = main(["verdicts", "--date", "2026-11-02", "--home", str(home)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(err) == 1 and "2026-11-02 is incomplete" in err[0], err
    assert main(["verdicts", "--date", "2026-11-01", "--home", str(home)]) == 0  # untouched
    with pytest.raises(IncompleteDay, match="earlier day 2026-11-02 is incomplete"):
        run_stages(spark, ctx["2026-11-03"])

    run_stages(spark, ctx["2026-11-02"])  # the rerun completes it
    assert verdicts(ctx["2026-11-02"])["copy"]["duplicate_of"] == "orig"
    run_stages(spark, ctx["2026-11-03"])
    assert verdicts(ctx["2026-11-03"])["new"]["verdict"] == "unique"


def test_a_stage_after_a_deploy_fails_saying_how_to_rerun_the_day(
    spark: Any, tmp_path: Path
) -> None:
    """The DAG runs one stage per task: when the day's earlier stages were written by
    other code (here the stamp an older version left; a real deploy between two tasks
    cannot happen inside one test process), the stage fails in one line naming them and
    how to rerun the day, runs no other stage's work and writes nothing."""
    import json

    from crawldedup.code_version import code_version
    from crawldedup.pipeline.stages import StageFailed

    cfg = Config().replace(**{"spark.shuffle_partitions": 4, "bloom.capacity_docs": 1000})
    day = write_day(
        tmp_path / "in",
        "2026-11-01",
        [
            rec("orig", ARTICLE, "2026-11-01T01:00:00Z", "网页判重方法"),
            rec("copy", ARTICLE + "版权所有。", "2026-11-01T02:00:00Z", "乙"),
        ],
    )
    ctx = DayContext(day="2026-11-01", home=tmp_path / "home", cfg=cfg, input_dir=day)
    run_stages(spark, ctx, stages=("fingerprint", "bloom", "candidates", "similarity"))
    stats = ctx.work / "stats" / "fingerprint.json"
    stamped = json.loads(stats.read_text())
    assert stamped["code"] == code_version()
    stats.write_text(json.dumps({**stamped, "code": "0123456789ab"}))  # an older version's
    lines: list[str] = []
    with pytest.raises(StageFailed) as failed:
        run_stages(spark, ctx, progress=lines.append, stages=("publish",))
    message = str(failed.value)
    assert len(message.splitlines()) == 1, message
    assert "fingerprint output was written by other code" in message, message
    assert "rerun the whole day (crawldedup run --date 2026-11-01" in message, message
    assert lines == [] and not (ctx.work / "stats" / "publish.json").exists()
    # The whole day rerun (as the message says) goes through.
    run_stages(spark, ctx)
    assert verdicts(ctx)["copy"]["duplicate_of"] == "orig"


def test_a_day_with_nothing_to_judge_runs_no_spark_job_after_fingerprint(
    spark: Any, tmp_path: Path
) -> None:
    """Every record quarantined and the day never published: candidates, similarity and
    publish say so in their stats and write no work files; the day is committed with 0
    documents. A published day rerun with nothing left (--replace) takes the full path,
    which removes its earlier verdicts."""
    from dataclasses import replace

    from crawldedup.day_state import published_with
    from crawldedup.store import open_store

    cfg = Config().replace(**{"spark.shuffle_partitions": 4, "bloom.capacity_docs": 1000})
    home = tmp_path / "home"
    bad = write_day(tmp_path / "bad", "2026-11-01", ["{not json", '{"id": 1}'])
    ctx = DayContext(day="2026-11-01", home=home, cfg=cfg, input_dir=bad)
    run_stages(spark, ctx)
    for name in ("candidates", "similarity", "publish"):
        assert ctx.read_stats(name)["nothing_to_judge"] is True, name
    assert not (ctx.work / "candidates").exists() and not (ctx.work / "decisions").exists()
    assert sum(ctx.read_stats("fingerprint")["quarantined"].values()) == 2
    with open_store(ctx.store) as store:
        committed = published_with(store, "2026-11-01")
    assert committed is not None and committed["documents"] == 0
    assert verdicts(ctx) == {}

    good = write_day(
        tmp_path / "good", "2026-11-02", [rec("orig", ARTICLE, "2026-11-02T01:00:00Z", "甲")]
    )
    day2 = DayContext(day="2026-11-02", home=home, cfg=cfg, input_dir=good)
    run_stages(spark, day2)
    assert set(verdicts(day2)) == {"orig"}
    gone = write_day(tmp_path / "gone", "2026-11-02", ["{not json"])
    rerun = replace(day2, input_dir=gone, replace=True)
    run_stages(spark, rerun)
    assert "nothing_to_judge" not in rerun.read_stats("publish")
    assert verdicts(rerun) == {}


def test_a_failed_relevance_stage_leaves_the_day_committed_and_reported(
    spark: Any, tmp_path: Path
) -> None:
    """Under the default cosine no stage of the day reads the relevance stage's output, so
    its failure is raised after commit and report: a real failure there (a topic library that is not
    valid YAML, which the stage reads on the driver) leaves the day's verdicts committed
    and its report written. Under the tag-weighted cosine similarity reads its vectors,
    and the same failure stops the day before anything is published."""
    from crawldedup.day_state import incomplete_days, published_with
    from crawldedup.pipeline.stages import StageFailed
    from crawldedup.stage_registry import plan
    from crawldedup.store import open_store

    broken = tmp_path / "topics.yaml"
    broken.write_text("topics: [football\n")  # an unclosed list
    day = "2026-11-01"
    folder = write_day(
        tmp_path / "in",
        day,
        [
            rec("orig", ARTICLE, "2026-11-01T01:00:00Z", "网页判重方法"),
            rec("copy", ARTICLE + "版权所有。", "2026-11-01T02:00:00Z", "乙"),
        ],
    )
    knobs = {"spark.shuffle_partitions": 4, "bloom.capacity_docs": 1000}
    cfg = Config().replace(**knobs, **{"relevance.library": str(broken)})
    ctx = DayContext(day=day, home=tmp_path / "home", cfg=cfg, input_dir=folder)
    lines: list[str] = []
    with pytest.raises(StageFailed) as failed:
        run_stages(spark, ctx, progress=lines.append, stages=plan(cfg))
    assert failed.value.stage == "relevance"
    assert f"{day} is committed and reported" in str(failed.value), failed.value
    # Relevance runs after fingerprint; its failure waits until the day is reported.
    assert [line.split()[2] for line in lines] == list(plan(cfg)), lines
    assert "failed: " in lines[1] and plan(cfg)[1] == "relevance", lines
    with open_store(ctx.store) as store:
        assert incomplete_days(store) == []
        committed = published_with(store, day)
    assert committed is not None and committed["documents"] == 2
    assert (ctx.work / "report.json").is_file()
    assert verdicts(ctx)["copy"]["duplicate_of"] == "orig"

    # The library fixed, the stage runs on its own over the committed day.
    broken.write_text(LIBRARY.read_text(encoding="utf-8"), encoding="utf-8")
    stats = run_stages(spark, ctx, stages=("relevance",))
    assert stats["pages"] == 2 and set(stats["topics"]) >= {"football"}

    # Under the tag-weighted cosine the day needs the stage's vectors: nothing published.
    broken.write_text("topics: [football\n")
    tag = DayContext(
        day=day,
        home=tmp_path / "tag-home",
        cfg=cfg.replace(**{"cascade.cosine_weights": "tag_tfidf"}),
        input_dir=folder,
    )
    with pytest.raises(StageFailed, match="stage relevance failed") as stopped:
        run_stages(spark, tag, stages=plan(tag.cfg))
    assert "committed" not in str(stopped.value)
    with open_store(tag.store) as store:
        assert published_with(store, day) is None
    assert not (tag.work / "decisions").exists()


def test_a_retry_of_the_same_run_resumes_after_the_stages_it_finished(
    spark: Any, tmp_path: Path
) -> None:
    """The DAG's dedup task passes its run's id (``--run-id``): a retry skips the stages
    that run already finished with this code; another run starts from the first stage."""
    from dataclasses import replace

    day = "2026-11-01"
    folder = write_day(tmp_path / "in", day, [rec("a", ARTICLE, f"{day}T01:00:00Z")])
    cfg = Config().replace(**{"spark.shuffle_partitions": 2, "bloom.capacity_docs": 1000})
    ctx = DayContext(day=day, home=tmp_path / "home", cfg=cfg, input_dir=folder, run_id="r1")
    first: list[str] = []
    run_stages(spark, ctx, ("fingerprint", "bloom"), first.append)
    assert [line.split()[2] for line in first] == ["fingerprint", "bloom"]
    assert ctx.read_stats("bloom")["run"] == "r1"
    # A retry after a failure in candidates: fingerprint and bloom are done.
    retry: list[str] = []
    run_stages(spark, ctx, ("fingerprint", "bloom", "candidates"), retry.append)
    assert retry[0] == f"[{day}] resuming run r1 after fingerprint, bloom", retry
    assert [line.split()[2] for line in retry[1:]] == ["candidates"]
    # Another run (a clear from the sensor) does the day again.
    again: list[str] = []
    run_stages(spark, replace(ctx, run_id="r2"), ("fingerprint", "bloom"), again.append)
    assert [line.split()[2] for line in again] == ["fingerprint", "bloom"]
