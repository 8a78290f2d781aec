"""The plugins' pure logic: crawl day, readiness, stage arguments and config, store URLs.

No Airflow import (these modules have none; jsonschema checks the Params' schemas, as
Airflow's form and trigger endpoint do), no JVM.
"""

from __future__ import annotations

import dataclasses
import typing
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import jsonschema
import pytest

from crawldedup.config import Config, ConfigError, load_config
from crawldedup.day_state import published_by_other
from crawldedup.store import open_store
from crawldedup_airflow.day import (
    RunSetupError,
    crawl_date,
    crawl_ready,
    day_args,
    day_dir,
    logical_date_check,
    run_config,
    run_token,
    spark_conf,
)
from crawldedup_airflow.params import KNOB_PARAMS, knob_field, knob_overrides, knob_schema
from crawldedup_airflow.stores import StoreSetupError, embedded_store_url, hbase_store_url

RUN: dict[str, Any] = {
    "crawl_date": "2026-11-02",
    "input": "/crawl/dt=2026-11-02",
    "home": "/h",
    "store": "sqlite:////h/store.db",
    "topics_library": None,
    "config": None,
}
# The DAG's defaults: null params mean "the config file's value".
PARAMS: dict[str, Any] = {"rules": None, "dry_run": False}


def test_crawl_date_is_the_logical_dates_day_the_param_only_confirms_it() -> None:
    logical = datetime(2026, 11, 1, 3, 0, tzinfo=UTC)
    assert crawl_date("2026-11-01", logical) == "2026-11-01"
    assert crawl_date("", logical) == "2026-11-01"
    assert crawl_date(None, logical) == "2026-11-01"
    with pytest.raises(RunSetupError, match="is not this run's crawl day 2026-11-01"):
        crawl_date("2026-11-05", logical)
    with pytest.raises(RunSetupError, match="no logical date, so no crawl day"):
        crawl_date("", None)
    with pytest.raises(RunSetupError, match="not a date"):
        crawl_date("2026-13-01", None)


def test_a_manual_run_whose_interval_is_not_its_logical_dates_is_refused() -> None:
    """``airflow dags trigger -l 2026-11-01T12:00`` on 2026-12-03 gets 2026-12-02's interval."""
    day = datetime(2026, 11, 1, 3, tzinfo=UTC)
    own = (day, datetime(2026, 11, 2, 3, tzinfo=UTC))
    triggered = datetime(2026, 12, 3, 6, 27, tzinfo=UTC)
    logical = datetime(2026, 11, 1, 12, tzinfo=UTC)
    # The form or the REST API: the interval is the logical date's.
    logical_date_check("2026-11-01", logical, own, triggered)
    # The form's default "now" (a day not over yet): the last complete day, as planned.
    today = (datetime(2026, 12, 3, 3, tzinfo=UTC), datetime(2026, 12, 4, 3, tzinfo=UTC))
    logical_date_check("2026-12-02", triggered, today, triggered)
    with pytest.raises(RunSetupError) as refused:
        logical_date_check("2026-12-02", logical, own, triggered)
    assert (
        "crawl day 2026-12-02 (which its run id names), not the day of its logical date, "
        "2026-11-01" in str(refused.value)
    )
    assert "--from-date 2026-11-01 --to-date 2026-11-01" in str(refused.value)
    logical_date_check("2026-11-01", None, None, triggered)  # no logical date: crawl_date's


def test_crawl_ready_by_marker_or_by_data_files(tmp_path: Path) -> None:
    folder = day_dir(tmp_path, "2026-11-01")
    assert folder == tmp_path / "dt=2026-11-01"
    assert crawl_ready(folder, "success_marker") == (False, f"{folder} does not exist yet")
    folder.mkdir()
    (folder / ".part.jsonl").write_text("{}\n")  # a hidden in-progress file is no data
    (folder / "notes.txt").write_text("x")  # nor is a file the readers skip
    assert not crawl_ready(folder, "data_files")[0]
    assert not crawl_ready(folder, "success_marker")[0]
    (folder / "sub").mkdir()
    (folder / "sub" / "part-0.jsonl.gz").write_bytes(b"")
    assert crawl_ready(folder, "data_files") == (True, "data file sub/part-0.jsonl.gz found")
    assert not crawl_ready(folder, "success_marker")[0]  # files alone may still be growing
    (folder / "_SUCCESS").touch()
    assert crawl_ready(folder, "success_marker")[0]
    with pytest.raises(RunSetupError, match="wait_for"):
        crawl_ready(folder, "whenever")


SPARK = ["fingerprint", "bloom", "candidates", "similarity", "publish"]


def test_day_args_carry_the_stages_the_day_the_store_and_the_params(tmp_path: Path) -> None:
    common = ["--date", "2026-11-02", "--home", "/h", "--store", "sqlite:////h/store.db"]
    tail = ["--input", "/crawl/dt=2026-11-02", "--run-id", "r1@t0"]
    run = {**RUN, "resolved_at": "t0"}
    assert day_args(PARAMS, run, "r1") == [*SPARK, *common, *tail]
    assert run_token("r1", run) == "r1@t0"
    rerun = {"rules": ["content_md5", "head"], "dry_run": True}
    args = day_args(rerun, run, "r1")
    assert 'cascade.rules=["content_md5", "head"]' in args
    assert not any(a.startswith("seed.threshold") for a in args)
    assert "--dry-run" in args
    # "replace" reaches publish, the stage that refuses to shrink a published day.
    assert "--replace" in day_args({**PARAMS, "replace": True}, run, "r1")
    # The library and the config file are the sensor's checked ones (the run), not params;
    # a library adds the relevance stage to the application, right after fingerprint.
    library = {**run, "topics_library": "/etc/topics.yaml"}
    with_library = day_args(PARAMS, library, "r1")
    assert with_library[:3] == ["fingerprint", "relevance", "bloom"]
    assert 'relevance.library="/etc/topics.yaml"' in with_library
    unchecked = {**PARAMS, "topics_library": "/elsewhere/t.yaml", "config": "/elsewhere/c.toml"}
    assert day_args(unchecked, run, "r1") == day_args(PARAMS, run, "r1")
    gated = {**PARAMS, "max_quarantined_share": 0.2, "trailing_days": 3}
    config = tmp_path / "c.toml"
    config.write_text("")
    assert day_args(gated, {**run, "config": str(config)}, "r1") == [
        *SPARK,
        *common,
        "--config",
        str(config),
        "--set",
        "gate.max_quarantined_share=0.2",
        "--set",
        "gate.trailing_days=3",
        *tail,
    ]


def test_day_args_parse_with_the_real_cli() -> None:
    """The overrides are valid for ``crawldedup stage`` (argparse and config validation)."""
    from crawldedup.cli import _config, build_parser

    argv = ["stage", *day_args({**PARAMS, "rules": ["title"]}, RUN, "r")]
    args = build_parser().parse_args(argv)
    cfg = _config(args)
    assert cfg.cascade.rules == ("title",) and args.run_id == "r@"
    default = build_parser().parse_args(["stage", *day_args(PARAMS, RUN, "r")])
    assert _config(default).cascade.rules == Config().cascade.rules
    assert cfg.store_url == RUN["store"]
    run = {**RUN, "topics_library": "/etc/topics.yaml"}
    rel = build_parser().parse_args(["stage", *day_args(PARAMS, run, "r")])
    assert _config(rel).relevance.library == "/etc/topics.yaml"


def test_every_task_builds_the_same_config_as_the_cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """run_config (the report task, the driver-memory macro) equals what ``crawldedup stage``
    builds from the same day_args: one path, from the config file on."""
    from crawldedup.cli import _config, build_parser

    config = tmp_path / "crawldedup.toml"
    config.write_text(
        '[gate]\nmax_quarantined_share = 0.3\n\n[spark]\ndriver_memory = "3g"\n\n'
        '[cascade]\nprofile = "seed"\nrules = ["content_md5", "title"]\n\n[seed]\nthreshold = 0.8\n'
    )
    params = {**PARAMS, "trailing_days": 2}
    run = {**RUN, "config": str(config)}
    cfg = run_config(params, run)
    cli_cfg = _config(build_parser().parse_args(["stage", *day_args(params, run, "r")]))
    assert cfg == cli_cfg
    assert (cfg.gate.max_quarantined_share, cfg.gate.trailing_days) == (0.3, 2)
    # The file's cascade and seed knobs act: no param overrides them unless set.
    assert cfg.seed.threshold == 0.8 and cfg.store_url == RUN["store"]
    assert cfg.cascade.rules == ("content_md5", "title")
    # JVM options beyond the quiet logging are Spark's own configuration's business.
    assert spark_conf(params, run) == {"spark.driver.memory": "3g"}
    # Without a config param, $CRAWLDEDUP_CONFIG names the file (as for the CLI).
    monkeypatch.setenv("CRAWLDEDUP_CONFIG", str(config))
    assert run_config(PARAMS, RUN).gate.max_quarantined_share == 0.3
    monkeypatch.delenv("CRAWLDEDUP_CONFIG")
    assert run_config(PARAMS, RUN).gate.max_quarantined_share == 0.10
    assert spark_conf(PARAMS, RUN, "/x/log4j2.properties") == {
        "spark.driver.memory": "2g",
        "spark.driver.extraJavaOptions": "-Dlog4j2.configurationFile=/x/log4j2.properties",
    }
    with pytest.raises(RunSetupError, match="config"):
        run_config(PARAMS, {**RUN, "config": str(tmp_path / "missing.toml")})
    # The config param is not read: the sensor checked and resolved the run's.
    assert run_config({**PARAMS, "config": str(config)}, RUN).gate.max_quarantined_share == 0.10


def test_a_run_without_the_checked_paths_is_refused_not_filled_from_params() -> None:
    """An XCom written before the allowed-roots check lacks the checked paths: the tasks
    refuse it (with what to do) rather than fall back to the unchecked params."""
    old = {k: v for k, v in RUN.items() if k not in ("topics_library", "config")}
    params = {**PARAMS, "config": "/etc/c.toml"}
    with pytest.raises(RunSetupError, match="clear wait_for_crawl"):
        day_args(params, old, "r")
    with pytest.raises(RunSetupError, match="'config'"):
        run_config(params, {**old, "topics_library": None})


def test_hbase_store_url_from_connection_fields() -> None:
    assert hbase_store_url("hb1", 9090, {}) == "hbase://hb1:9090/crawldedup"
    extra = {
        "table_prefix": "crawl",
        "timeout_ms": 120000,
        "retries": 8,
        "transport": "framed",
        "protocol": "compact",
    }
    url = hbase_store_url("hb1", None, extra)
    assert url == (
        "hbase://hb1:9090/crawl?timeout_ms=120000&retries=8&transport=framed&protocol=compact"
    )
    with pytest.raises(StoreSetupError, match="unknown keys"):
        hbase_store_url("hb1", 9090, {"table_prefx": "x"})
    # Rows per request are the config's limits.store_batch_size, not a connection setting.
    with pytest.raises(StoreSetupError, match="unknown keys"):
        hbase_store_url("hb1", 9090, {"batch_size": 1000})
    with pytest.raises(StoreSetupError, match="no host"):
        hbase_store_url(None, 9090, {})
    with pytest.raises(StoreSetupError, match="table_prefix"):
        hbase_store_url("hb1", 9090, {"table_prefix": "a/b"})


def test_hbase_store_url_opens_with_the_stores_own_parser() -> None:
    """The URL's options are the ones ``crawldedup.store.open`` accepts (no server needed)."""
    from crawldedup.store.hbase_store import HBaseStore

    store = open_store(hbase_store_url("127.0.0.1", 1, {"table_prefix": "p", "retries": 0}))
    assert isinstance(store, HBaseStore)
    assert (store.prefix, store.retries) == ("p", 0)


def test_embedded_store_url_is_the_clis_default(tmp_path: Path) -> None:
    assert embedded_store_url(tmp_path) == f"sqlite:///{tmp_path.resolve() / 'store.db'}"


# --- Params made from config knobs ---------------------------------------------------------


def _all_knobs() -> list[str]:
    hints = typing.get_type_hints(Config)
    return [
        f"{s.name}.{f.name}"
        for s in dataclasses.fields(Config)
        if s.name != "store_url"
        for f in dataclasses.fields(hints[s.name])
    ]


def test_every_knob_param_has_the_config_fields_type_choices_and_bounds() -> None:
    """Any knob can become a Param: its schema accepts null and the config's default, and
    says the field's type, Literal choices, list items and bounds."""
    json_type = {bool: "boolean", int: "integer", float: "number", str: "string"}
    for key in _all_knobs():
        f, _, hint = knob_field(key)
        schema = knob_schema(key)
        validator = jsonschema.Draft7Validator(schema)
        assert validator.is_valid(None) and validator.is_valid(_as_json(f.default)), key
        if typing.get_origin(hint) is Literal:
            assert schema["enum"] == [None, *typing.get_args(hint)], key
            assert not validator.is_valid("bogus"), key
        elif typing.get_origin(hint) is tuple:
            assert schema["type"] == ["null", "array"], key
            assert schema["items"].get("enum", None) == (list(f.metadata["items"]) or None), key
        else:
            assert schema["type"] == ["null", json_type[hint]], key
        bounds = f.metadata["bounds"]
        for name, value in bounds.items():
            just_out = value - 1 if name in ("ge", "gt") else value + 1
            assert not validator.is_valid(just_out), key
        assert f.metadata["doc"] in schema["description"] and "Empty" in schema["description"]
        if f.metadata["experimental"]:
            assert "Experimental" in schema["description"], key


def _as_json(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def test_the_dags_knob_params_reach_set_with_the_files_checks(tmp_path: Path) -> None:
    assert set(KNOB_PARAMS) == {
        "rules",
        "max_quarantined_share",
        "duplicate_rate_tolerance",
        "trailing_days",
    }
    assert knob_overrides(dict.fromkeys(KNOB_PARAMS)) == []  # null: the file's values
    good = {"rules": ["title", "head"], "max_quarantined_share": 0.2, "trailing_days": 3}
    items = knob_overrides(good)
    assert items == [
        'cascade.rules=["title", "head"]',
        "gate.max_quarantined_share=0.2",
        "gate.trailing_days=3",
    ]
    cfg = run_config(good, RUN)
    assert cfg.cascade.rules == ("title", "head") and cfg.gate.trailing_days == 3
    # A value the form would refuse, sent around it (a conf the trigger did not validate),
    # is refused by the file loader's checks, with the file's message.
    for params, key, value in (
        ({"trailing_days": "7"}, "trailing_days", '"7"'),
        ({"trailing_days": 0}, "trailing_days", "0"),
        ({"max_quarantined_share": 1.5}, "max_quarantined_share", "1.5"),
        ({"rules": ["bogus"]}, "rules", '["bogus"]'),
    ):
        knob = KNOB_PARAMS[key][0]
        section, _, name = knob.partition(".")
        config = tmp_path / f"{name}.toml"
        config.write_text(f"[{section}]\n{name} = {value}\n")
        with pytest.raises(ConfigError) as from_file:
            load_config(config)
        with pytest.raises(RunSetupError) as from_param:
            run_config(params, RUN)
        assert str(from_file.value).split(": ", 1)[1] in str(from_param.value), params
        assert not jsonschema.Draft7Validator(knob_schema(knob)).is_valid(_as_json(params[key]))


def test_a_report_of_a_day_another_run_published_last_says_whose_it_is() -> None:
    mine = "backfill__2026-12-03T00:00:00+00:00@2026-12-05T00:10:00+00:00"
    later = "manual__crawl-2026-12-03__2026-12-05T01:00:00+00:00@2026-12-05T01:00:05+00:00"
    assert published_by_other("2026-12-03", {"run": mine}, mine) is None
    # Published before the record of who did: nothing to hold it against.
    assert published_by_other("2026-12-03", {"documents": 3}, mine) is None
    assert published_by_other("2026-12-03", None, mine) is None
    said = published_by_other("2026-12-03", {"run": later}, mine)
    assert said is not None
    assert said.startswith("2026-12-03 was last published by manual__crawl-2026-12-03__")
    assert "not by this run (backfill__2026-12-03T00:00:00+00:00)" in said and "@" not in said
    assert "clear this run from wait_for_crawl" in said
    by_cli = published_by_other("2026-12-03", {"run": None}, mine)
    assert by_cli is not None and "the command line (crawldedup run)" in by_cli
