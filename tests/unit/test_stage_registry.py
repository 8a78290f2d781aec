"""The stages declare what they read and write; every order is derived from that: the
CLI's, the runners', the jobs', the submit helper's and the Airflow DAG's edges."""

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
    dag_edges,
    dag_task_runs,
    dag_tasks,
    plan,
    side_stages,
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


def _reachable(edges: list[tuple[str, str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        n = todo.pop()
        for up, down in edges:
            if up == n and down not in seen:
                seen.add(down)
                todo.append(down)
    return seen


def test_the_dag_edges_allow_exactly_the_cli_order_for_every_configuration() -> None:
    edges = dag_edges()
    tasks = dag_tasks()
    ids = [t.task_id for t in tasks]
    assert {n for e in edges for n in e} == set(ids) and len(set(ids)) == len(ids)
    assert {t.stage for t in tasks} == set(NAMES)
    # One chain: a day's stages share the home's and the store's run locks.
    assert len(edges) == len(ids) - 1
    assert len({u for u, _ in edges}) == len({d for _, d in edges}) == len(edges)
    for label, cfg in CONFIGS.items():
        order = plan(cfg)
        # The tasks that run under this configuration, in chain order, run the CLI's order.
        running = [t for t in tasks if dag_task_runs(t.task_id, cfg)]
        assert tuple(t.stage for t in running) == order, label
        # Whatever a stage reads under this configuration is upstream of it in the DAG.
        made = _producers()
        task_of = {t.stage: t.task_id for t in running}
        for t in running:
            for d in stage(t.stage).reads(cfg):
                if d in made:
                    assert t.task_id in _reachable(edges, task_of[made[d]]), (label, t, d)


def test_relevance_runs_after_the_day_unless_the_cascade_reads_its_vectors() -> None:
    """A relevance failure must not hold back the day's verdicts: the stage follows commit
    and report when no stage of the day reads its output; under the tag-weighted cosine,
    similarity reads its vectors and it runs before, in the CLI and in the DAG."""
    for label in ("topic library", "topic library and tag_tfidf cosine", "tag_tfidf cosine"):
        order = plan(CONFIGS[label])
        tag = "tag_tfidf" in label
        if tag:
            assert order.index("relevance") < order.index("similarity"), label
            assert upstream("similarity", CONFIGS[label])[:2] == ("fingerprint", "relevance")
        else:
            assert order[-3:] == ("commit", "report", "relevance"), label
        assert side_stages(order, CONFIGS[label]) == (frozenset() if tag else {"relevance"})
        runs = [t.task_id for t in dag_tasks() if dag_task_runs(t.task_id, CONFIGS[label])]
        assert ("relevance_for_similarity" if tag else "relevance") in runs, label
    chain = [t.task_id for t in dag_tasks()]
    assert chain.index("relevance_for_similarity") < chain.index("similarity")
    assert chain.index("report") < chain.index("relevance") == len(chain) - 1
    # The day's own stages never wait for a side stage.
    assert "relevance" not in upstream("report", CONFIGS["topic library"])


def test_runners_cli_choices_and_job_files_follow_the_registry() -> None:
    from crawldedup.cli import build_parser
    from crawldedup.pipeline.stages import RUNNERS

    assert tuple(RUNNERS) == NAMES
    # One entry point per stage: spark-submit for the Spark ones, python for the others.
    jobs = {p.stem for p in (ROOT / "jobs").glob("*.py")}
    assert jobs == set(NAMES)
    for name in NAMES:
        args = build_parser().parse_args(["stage", name, "--date", "2026-11-01"])
        assert args.name == name
    with pytest.raises(Exception, match="invalid choice"):
        build_parser().parse_args(["stage", "dedupe", "--date", "2026-11-01"])


def test_stage_argv_adds_input_only_where_the_stage_reads_it() -> None:
    base = ["--date", "2026-11-01", "--home", "/h", "--store", "sqlite:////h/s.db"]
    kw = {"day": "2026-11-01", "home": "/h", "store": "sqlite:////h/s.db"}
    assert stage_argv("bloom", **kw, input_dir="/in") == base
    assert stage_argv("fingerprint", **kw, input_dir="/in") == [*base, "--input", "/in"]
    assert stage_argv("publish", **kw, config="/c.toml", overrides=["a=1"], dry_run=True) == [
        *base,
        "--config",
        "/c.toml",
        "--set",
        "a=1",
        "--dry-run",
    ]
    with pytest.raises(ValueError, match="input folder"):
        stage_argv("relevance", **kw)


def test_a_stage_checks_the_code_stamps_of_what_it_reads_only() -> None:
    """A stage run on its own compares the code stamps of the stages it reads from:
    bloom (earlier days only) does not wait for, nor check, fingerprint."""
    assert upstream("fingerprint", Config()) == upstream("bloom", Config()) == ()
    assert upstream("candidates", Config()) == ("fingerprint", "bloom")
    assert "relevance" in upstream("similarity", CONFIGS["tag_tfidf cosine"])
    assert "relevance" not in upstream("similarity", CONFIGS["topic library"])
    assert upstream("report", Config())[-1] == "commit"
