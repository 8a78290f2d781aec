import re
import tomllib
from pathlib import Path

import pytest

from crawldedup.config import Config, ConfigError, load_config


def test_defaults_are_valid() -> None:
    cfg = load_config(None)
    assert cfg.seed.threshold == 0.9 and cfg.seed.simhash_min_jaccard == 0.7
    assert cfg.fingerprint.head_chars == 100


def test_file_overrides(tmp_path: Path) -> None:
    p = tmp_path / "c.toml"
    p.write_text(
        'store_url = "sqlite:///x.db"\n'
        '[cascade]\nprofile = "seed"\nrules = ["content_md5", "head"]\n'
        "[seed]\nthreshold = 0.8\n"
    )
    cfg = load_config(p)
    assert cfg.seed.threshold == 0.8 and cfg.cascade.rules == ("content_md5", "head")


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("[seed]\nthreshold = 1.5\n", "seed.threshold must be in (0, 1]"),
        ('[cascade]\nrules = ["nope"]\n', "unknown rule"),
        ('[fingerprint]\nhead_chars = "x"\n', "must be int"),
        ("[nope]\na = 1\n", "unknown config key"),
        ("[cascade]\ntreshold = 0.8\n", "unknown key 'treshold'"),
        ("this is not toml", "config file"),
    ],
)
def test_bad_config_is_one_clear_error(tmp_path: Path, text: str, fragment: str) -> None:
    p = tmp_path / "bad.toml"
    p.write_text(text)
    with pytest.raises(ConfigError) as err:
        load_config(p)
    assert fragment in str(err.value)
    assert "\n" not in str(err.value).strip()


def test_missing_file() -> None:
    with pytest.raises(ConfigError, match="not found"):
        load_config("/nonexistent/c.toml")


def test_replace_validates() -> None:
    assert Config().replace(**{"seed.threshold": 0.7}).seed.threshold == 0.7
    with pytest.raises(ConfigError):
        Config().replace(**{"seed.threshold": 0})


def test_build_config_is_file_then_store_then_overrides(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from crawldedup.config import build_config, parse_override

    f = tmp_path / "c.toml"
    f.write_text('store_url = "sqlite:////a.db"\n[gate]\nmax_quarantined_share = 0.5\n')
    cfg = build_config(f, "sqlite:////b.db", [parse_override("gate.trailing_days=3")])
    assert cfg.store_url == "sqlite:////b.db"
    assert (cfg.gate.max_quarantined_share, cfg.gate.trailing_days) == (0.5, 3)
    monkeypatch.setenv("CRAWLDEDUP_CONFIG", str(f))
    assert build_config(None).gate.max_quarantined_share == 0.5
    monkeypatch.setenv("CRAWLDEDUP_CONFIG", str(tmp_path / "missing.toml"))
    with pytest.raises(ConfigError, match="not found"):
        build_config(None)
    assert parse_override('cascade.rules=["head"]') == ("cascade.rules", ("head",))
    assert parse_override("spark.master=local[2]") == ("spark.master", "local[2]")
    with pytest.raises(ConfigError, match="KEY=VALUE"):
        parse_override("novalue")


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ("seed.threshold=abc", "seed.threshold must be float, got str"),
        ("bloom.capacity_docs=1.5", "bloom.capacity_docs must be int, got float"),
        ("boilerplate.enabled=1", "boilerplate.enabled must be bool, got int"),
        ("cascade.rules=[1, 2]", "cascade.rules must be a list of strings"),
        ("cascade.rulez=1", "unknown key 'rulez'"),
        ("cache.size=1", "unknown section [cache]"),
        ("threshold=0.8", "not a key"),
    ],
)
def test_set_goes_through_the_file_loaders_checks(item: str, message: str) -> None:
    """--set (and the DAG's overrides) are checked as a config file's values are: a value
    the file would refuse is refused, naming the key, not stored with the wrong type."""
    from crawldedup.config import build_config, parse_override

    with pytest.raises(ConfigError, match=re.escape(message)) as refused:
        build_config(None, None, [parse_override(item)])
    assert str(refused.value).startswith(f"--set {item.partition('=')[0]}:")
    # A file with the same value is refused by the same check.
    section, _, key = item.partition("=")[0].partition(".")
    if key and section != "cache" and key != "rulez":
        value = item.partition("=")[2]
        if isinstance(parse_override(item)[1], str):  # a bare word: a string to --set
            value = f'"{value}"'
        with pytest.raises(ConfigError, match=re.escape(message)):
            from crawldedup.config import config_from_dict

            config_from_dict(tomllib.loads(f"[{section}]\n{key} = {value}\n"))


def test_set_accepts_what_the_file_accepts() -> None:
    from crawldedup.config import build_config, parse_override

    cfg = build_config(
        None,
        None,
        [parse_override(x) for x in ("cascade.min_jaccard=1", "spark.master=local[2]")],
    )
    assert cfg.cascade.min_jaccard == 1.0 and isinstance(cfg.cascade.min_jaccard, float)
    assert cfg.spark.master == "local[2]"


def test_gate_section_is_validated(tmp_path: Path) -> None:
    f = tmp_path / "c.toml"
    f.write_text("[gate]\nmax_quarantined_share = 1.5\n")
    with pytest.raises(ConfigError, match=r"gate.max_quarantined_share must be in \[0, 1\]"):
        load_config(f)
    f.write_text("[gate]\nnot_a_knob = 1\n")
    with pytest.raises(ConfigError, match="unknown key"):
        load_config(f)


def test_booleans_are_booleans(tmp_path: Path) -> None:
    f = tmp_path / "c.toml"
    f.write_text("[boilerplate]\nenabled = false\n")
    assert load_config(f).boilerplate.enabled is False
    f.write_text("[boilerplate]\nenabled = 1\n")
    with pytest.raises(ConfigError, match=r"boilerplate\.enabled must be bool, got int"):
        load_config(f)
    f.write_text("[boilerplate]\nmin_pages = true\n")
    with pytest.raises(ConfigError, match=r"boilerplate\.min_pages must be int, got bool"):
        load_config(f)


@pytest.mark.parametrize(
    ("section", "key", "new"),
    [
        ("cascade", "threshold", "seed.threshold"),
        ("simhash", "min_jaccard", "seed.simhash_min_jaccard"),
    ],
)
def test_a_moved_knob_is_refused_naming_where_it_went(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], section: str, key: str, new: str
) -> None:
    """The seed profile's knobs live in [seed], where they act: an old file, an old --set
    and an old replace() are refused in one line naming the new key, never ignored."""
    from crawldedup.config import build_config, parse_override

    old = f"{section}.{key}"
    f = tmp_path / "old.toml"
    f.write_text(f"[{section}]\n{key} = 0.8\n")
    refusals = []
    for attempt in (
        lambda: load_config(f),
        lambda: build_config(None, None, [parse_override(f"{old}=0.8")]),
        lambda: Config().replace(**{old: 0.8}),
    ):
        with pytest.raises(ConfigError) as refused:
            attempt()
        refusals.append(str(refused.value))
    for message in refusals:
        assert len(message.splitlines()) == 1, message
        assert f"{old} moved to {new}" in message, message
    # The command line exits 2 with that line (a usage error: nothing runs).
    from crawldedup.cli import main

    for flags in (["--config", str(f)], ["--set", f"{old}=0.8"]):
        capsys.readouterr()
        assert main(["verdicts", "--date", "2026-11-01", "--home", str(tmp_path), *flags]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and f"{old} moved to {new}" in err[0], err
    # The new key is accepted.
    f.write_text(f"[{new.partition('.')[0]}]\n{new.partition('.')[2]} = 0.8\n")
    assert getattr(load_config(f).seed, new.partition(".")[2]) == 0.8
