from pathlib import Path

import pytest

from crawldedup.config import Config, ConfigError, load_config


def test_defaults_are_valid() -> None:
    cfg = load_config(None)
    assert cfg.cascade.threshold == 0.9
    assert cfg.fingerprint.head_chars == 100


def test_file_overrides(tmp_path: Path) -> None:
    p = tmp_path / "c.toml"
    p.write_text(
        'store_url = "sqlite:///x.db"\n'
        '[cascade]\nthreshold = 0.8\nrules = ["content_md5", "head"]\n'
    )
    cfg = load_config(p)
    assert cfg.cascade.threshold == 0.8 and cfg.cascade.rules == ("content_md5", "head")


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("[cascade]\nthreshold = 1.5\n", "threshold"),
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
    assert Config().replace(**{"cascade.threshold": 0.7}).cascade.threshold == 0.7
    with pytest.raises(ConfigError):
        Config().replace(**{"cascade.threshold": 0})
