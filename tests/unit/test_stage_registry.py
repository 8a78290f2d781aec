"""The stages declare what they read and write; every order is derived from that: the
one runner's (CLI, jobs/day.py, submit helper) and the Airflow DAG's dedup application."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from crawldedup.config import Config
from crawldedup.stage_registry import (
    DEDUP_STAGES,
    NAMES,
    STAGES,
    _producers,
    deferred_stages,
    plan,
    spark_stages,
    stage,
    stage_argv,
    upstream,
)

ROOT = Path(__file__).resolve().parents[2]


def _with(section: str, **values: object) -> Config:
    cfg = Config()
    return dataclasses.replace(
        cfg, **{section: dataclasses.replace(getattr(cfg, section), **values)}
    )


CONFIGS = {
    "default": Config(),
    "topic library": _with("relevance", library="config/topics.example.yaml"),
    "tag_tfidf cosine": _with("cascade", cosine_weights="tag_tfidf"),
    "topic library and tag_tfidf cosine": dataclasses.replace(
        _with("cascade", cosine_weights="tag_tfidf"),
        relevance=_with("relevance", library="config/topics.example.yaml").relevance,
    ),
    "seed profile": _with("cascade", profile="seed"),
    "seed profile and topic library": dataclasses.replace(
        _with("cascade", profile="seed"),
        relevance=_with("relevance", library="config/topics.example.yaml").relevance,
    ),
}


def test_each_stage_comes_after_the_stages_whose_data_it_reads() -> None:
    made = _producers()
    for name, cfg in CONFIGS.items():
        order = plan(cfg)
        for i, s in enumerate(order):
            for d in stage(s).reads(cfg):
                if d in made and made[d] in order:
                    assert order.index(made[d]) < i, (name, s, d)
    assert DEDUP_STAGES == (
        "fingerprint",
        "bloom",
        "candidates",
        "similarity",
        "publish",
        "commit",
        "report",
    )
    # The tag-weighted cosine reads the relevance stage's vectors: that stage runs first.
    tag = plan(CONFIGS["tag_tfidf cosine"])
    assert "relevance" in tag and tag.index("relevance") < tag.index("similarity")
    assert "relevance" not in plan(CONFIGS["seed profile"])
    with pytest.raises(ValueError, match="known"):
        stage("dedupe")


def test_no_data_is_written_by_two_stages_and_commit_is_not_the_report() -> None:
    assert len(_producers()) == sum(len(s.writes) for s in STAGES)
    # Committing the day (its complete mark) is a step of its own, before the report.
    assert DEDUP_STAGES.index("publish") < DEDUP_STAGES.index("commit")
    assert DEDUP_STAGES.index("commit") < DEDUP_STAGES.index("report")
    assert not stage("commit").spark and not stage("report").spark


def test_every_configuration_runs_its_spark_stages_in_one_application_then_two_without() -> None:
    """The DAG's dedup task submits ``spark_stages(cfg)`` at once; commit and report
    follow without Spark: a DAG day is one Spark application for every configuration."""
    for label, cfg in CONFIGS.items():
        order = plan(cfg)
        spark = spark_stages(cfg)
        assert order == (*spark, "commit", "report"), label
        assert all(stage(n).spark for n in spark), label
        assert spark[0] == "fingerprint" and spark[-1] == "publish", label


def test_relevance_follows_fingerprint_its_failure_waits_unless_similarity_reads_it() -> None:
    """A relevance failure must not hold back the day's verdicts: when no stage of the day
    reads its output, its failure is deferred until the day is committed and reported
    (pipeline/stages.run_stages; the DAG's relevance task); under the tag-weighted cosine,
    similarity reads its vectors and a failure stops the day."""
    for label in ("topic library", "topic library and tag_tfidf cosine", "tag_tfidf cosine"):
        order = plan(CONFIGS[label])
        tag = "tag_tfidf" in label
        assert order[:2] == ("fingerprint", "relevance"), label
        if tag:
            assert upstream("similarity", CONFIGS[label])[:2] == ("fingerprint", "relevance")
        assert deferred_stages(order, CONFIGS[label]) == (frozenset() if tag else {"relevance"}), (
            label
        )
    # The day's own stages never wait for a deferred stage.
    assert "relevance" not in upstream("report", CONFIGS["topic library"])


def test_runners_cli_choices_and_job_files_follow_the_registry() -> None:
    from crawldedup.cli import build_parser
    from crawldedup.pipeline.stages import all_units

    units = all_units()  # every stage of the registry has its module
    assert tuple(units) == NAMES
    assert all(u.declared.name == n for n, u in units.items())
    # One entry point for every submission: crawldedup stage NAME...
    assert {p.name for p in (ROOT / "jobs").glob("*.py")} == {"day.py"}
    for name in NAMES:
        args = build_parser().parse_args(["stage", name, "--date", "2026-11-01"])
        assert args.names == [name]
    args = build_parser().parse_args(["stage", *spark_stages(Config()), "--date", "2026-11-01"])
    assert tuple(args.names) == spark_stages(Config())
    with pytest.raises(Exception, match="invalid choice"):
        build_parser().parse_args(["stage", "dedupe", "--date", "2026-11-01"])


def test_stage_argv_adds_input_only_where_a_stage_reads_it() -> None:
    base = ["--date", "2026-11-01", "--home", "/h", "--store", "sqlite:////h/s.db"]
    kw = {"day": "2026-11-01", "home": "/h", "store": "sqlite:////h/s.db"}
    assert stage_argv(["bloom"], **kw, input_dir="/in") == ["bloom", *base]
    assert stage_argv(["fingerprint", "bloom"], **kw, input_dir="/in") == [
        "fingerprint", "bloom", *base, "--input", "/in",
    ]  # fmt: skip
    assert stage_argv(
        ["publish"], **kw, config="/c.toml", overrides=["a=1"], dry_run=True, run_id="r1"
    ) == ["publish", *base, "--config", "/c.toml", "--set", "a=1", "--dry-run", "--run-id", "r1"]
    with pytest.raises(ValueError, match="input folder"):
        stage_argv(["relevance"], **kw)


def test_a_stage_checks_the_code_stamps_of_what_it_reads_only() -> None:
    """A stage run on its own compares the code stamps of the stages it reads from:
    bloom (earlier days only) does not wait for, nor check, fingerprint."""
    assert upstream("fingerprint", Config()) == upstream("bloom", Config()) == ()
    assert upstream("candidates", Config()) == ("fingerprint", "bloom")
    assert "relevance" in upstream("similarity", CONFIGS["tag_tfidf cosine"])
    assert "relevance" not in upstream("similarity", CONFIGS["topic library"])
    assert upstream("report", Config())[-1] == "commit"


def test_a_stage_opens_only_the_work_folders_it_declares(tmp_path: Path) -> None:
    """The runner hands each stage a context naming it (run_stages); a work folder is
    opened by its handle, and one the stage does not declare (or another stage's stats)
    raises instead of being read."""
    from crawldedup.pipeline.context import DayContext
    from crawldedup.stage_registry import (
        BLOOM,
        CANDIDATES,
        DOCS,
        PUBLISHED,
        SCORES,
        TAGVEC,
        UndeclaredData,
        declared_folders,
    )

    def ctx(name: str | None, cfg: Config | None = None) -> DayContext:
        return DayContext(day="2026-11-01", home=tmp_path, cfg=cfg or Config(), stage=name)

    assert ctx("candidates").path(DOCS).endswith("dt=2026-11-01/docs")
    assert ctx("candidates").folder(BLOOM).name == "bloom"
    with pytest.raises(UndeclaredData, match="stage bloom opened the work folder 'candidates'"):
        ctx("bloom").path(CANDIDATES)
    # Another stage's scratch is undeclared too.
    with pytest.raises(UndeclaredData, match="stage publish opened the work folder 'scores'"):
        ctx("publish").path(SCORES)
    with pytest.raises(UndeclaredData, match=r"stats/similarity\.json"):
        ctx("commit").read_stats("similarity")
    with pytest.raises(UndeclaredData, match=r"stats/publish\.json"):
        ctx("fingerprint").write_stats("publish", {})
    # What a stage reads depends on the configuration: the tag-weighted vectors only
    # under the tag-weighted cosine.
    with pytest.raises(UndeclaredData, match="relevance/tagvec"):
        ctx("similarity").path(TAGVEC)
    tag = CONFIGS["tag_tfidf cosine"]
    assert ctx("similarity", tag).path(TAGVEC)
    assert TAGVEC in declared_folders("similarity", tag)
    # Rows of the store are not a work folder: no stage opens them as one.
    with pytest.raises(ValueError, match="not a work folder"):
        ctx("publish").folder(PUBLISHED)
    # Outside a stage (the runner, read commands) the handle is not checked.
    assert ctx(None).path(SCORES).endswith("dt=2026-11-01/scores")
