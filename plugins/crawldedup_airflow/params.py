"""The DAG Params that stand for config knobs, made from the knobs' declarations.

A knob (``crawldedup.config.knob``) declares its type, its choices (``Literal``) or list
items, its bounds and its help once; :func:`knob_schema` turns it into the JSON schema of a
nullable Param whose default null means "the config file's value", and
:func:`knob_overrides` turns the set ones into the CLI's ``--set`` items, which go through
the same checks as the file (``config.build_config``). Pure at module level: the DAG
calls :func:`knob_params`, which imports ``airflow.sdk``.
"""

from __future__ import annotations

import dataclasses
import json
import typing
from collections.abc import Mapping
from typing import Any, Literal

from crawldedup import config
from crawldedup.config_doc import help_text

KNOB_PARAMS: dict[str, tuple[str, str]] = {
    "rules": ("cascade.rules", "Cascade"),
    "max_quarantined_share": ("gate.max_quarantined_share", "Quality gate"),
    "duplicate_rate_tolerance": ("gate.duplicate_rate_tolerance", "Quality gate"),
    "trailing_days": ("gate.trailing_days", "Quality gate"),
}
"""Param name → (the config knob it overrides, the trigger form's section). Adding a knob
to the form is one line here."""

_JSON_TYPES: dict[Any, str] = {bool: "boolean", int: "integer", float: "number", str: "string"}
_BOUNDS = {"ge": "minimum", "gt": "exclusiveMinimum", "le": "maximum", "lt": "exclusiveMaximum"}


def knob_field(key: str) -> tuple[dataclasses.Field[Any], type[Any], Any]:
    """The dataclass field of ``SECTION.NAME``, its section class and its type hint."""
    section, _, name = key.partition(".")
    cls = config.SECTIONS[section]
    (f,) = [f for f in dataclasses.fields(cls) if f.name == name]
    return f, cls, typing.get_type_hints(cls)[name]


def knob_schema(key: str) -> dict[str, Any]:
    """The Param's JSON schema (with its title and description) for one knob."""
    f, cls, hint = knob_field(key)
    schema: dict[str, Any]
    if typing.get_origin(hint) is Literal:
        values = typing.get_args(hint)
        schema = {"type": ["null", "string"], "enum": [None, *values]}
    elif typing.get_origin(hint) is tuple:
        item: dict[str, Any] = {"type": "string"}
        items: tuple[str, ...] = f.metadata.get("items", ())
        if items:
            item["enum"] = list(items)
        schema = {"type": ["null", "array"], "items": item, "minItems": 1, "uniqueItems": True}
        if items:
            schema["examples"] = list(items)
    else:
        schema = {"type": ["null", _JSON_TYPES[hint]]}
    for bound, value in f.metadata.get("bounds", {}).items():
        schema[_BOUNDS[bound]] = value
    name = key.partition(".")[2]
    schema["title"] = name.replace("_", " ").capitalize()
    default = ", ".join(f.default) if isinstance(f.default, tuple) else f.default
    schema["description"] = (
        f"{help_text(f, cls)} Empty: the config file's {key} ({default} by default)."
    )
    return schema


def knob_params() -> dict[str, Any]:
    """The DAG's Params for ``KNOB_PARAMS``: null by default, the config's type, choices,
    bounds and help."""
    from airflow.sdk import Param

    return {
        name: Param(None, section=section, **knob_schema(key))
        for name, (key, section) in KNOB_PARAMS.items()
    }


def knob_overrides(params: Mapping[str, Any]) -> list[str]:
    """The knob Params that are set, as ``--set KEY=VALUE`` items (VALUE in TOML)."""
    items = []
    for name, (key, _) in KNOB_PARAMS.items():
        value = params.get(name)
        if value is not None:
            items.append(f"{key}={json.dumps(list(value) if isinstance(value, tuple) else value)}")
    return items
