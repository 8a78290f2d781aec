"""docs/configuration.md is generated from the config's declarations and committed as such.

Regenerate with ``python -m crawldedup.config_doc > docs/configuration.md``.
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
import typing
from pathlib import Path
from typing import Literal

from crawldedup import config
from crawldedup.config_doc import render

PAGE = Path(__file__).resolve().parents[2] / "docs" / "configuration.md"


def _sections() -> dict[str, type]:
    hints = typing.get_type_hints(config.Config)
    return {
        f.name: hints[f.name] for f in dataclasses.fields(config.Config) if f.name != "store_url"
    }


def test_the_committed_page_is_the_generated_one() -> None:
    assert PAGE.read_text(encoding="utf-8") == render(), (
        "docs/configuration.md differs from the config's declarations: run "
        "`python -m crawldedup.config_doc > docs/configuration.md`"
    )


def test_the_reference_block_is_a_config_file_of_the_defaults() -> None:
    (block,) = re.findall(r"```toml\n(.*?)```", render(), re.S)
    raw = tomllib.loads(block)
    assert dataclasses.asdict(config.config_from_dict(raw)) == dataclasses.asdict(config.Config())
    assert set(raw) == {"store_url", *_sections()}
    for name, cls in _sections().items():
        assert set(raw[name]) == {f.name for f in dataclasses.fields(cls)}, name


def test_every_knob_has_help_and_experimental_choices_are_real_non_defaults() -> None:
    for name, cls in _sections().items():
        hints = typing.get_type_hints(cls)
        for f in dataclasses.fields(cls):
            assert f.metadata.get("doc"), f"{name}.{f.name} has no help"
            experimental = f.metadata.get("experimental", ())
            if experimental:
                assert typing.get_origin(hints[f.name]) is Literal
                assert set(experimental) <= set(typing.get_args(hints[f.name]))
                assert f.default not in experimental, f"{name}.{f.name}"
    page = render()
    for key, choice in (
        ("cascade.profile", "seed"),
        ("cascade.cosine_weights", "tag_tfidf"),
        ("bloom.source", "scan"),
        ("simhash.features", "jieba"),
        ("relevance.mode", "tfidf"),
    ):
        section, _, name = key.partition(".")
        (f,) = [f for f in dataclasses.fields(_sections()[section]) if f.name == name]
        assert choice in f.metadata["experimental"], key
    assert page.count("Experimental:") >= 5
