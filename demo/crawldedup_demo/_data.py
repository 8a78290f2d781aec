"""The sample's text tables: UTF-8 JSON package data under ``demo/crawldedup_demo/data/``.

Each file is read on first use and parsed once per process (``importlib.resources``, so
it works from a wheel or a zip as well as from the source tree). Nothing is read when
``crawldedup_demo`` is imported. The files' order is part of the sample: the generator
draws by position, so the same files give the same bytes.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

__all__ = ["DATA_FILES", "load"]

DATA_FILES: tuple[str, ...] = (
    "corpus_en",  # article banks (corpus.py)
    "corpus_zh",
    "negatives",  # generic titles, boilerplate, forum chrome (generator.py)
    "relevance_topics",  # the labelled topic-relevance days (topics.py)
    "sites",  # web sites and page menus (generator.py)
    "transforms",  # what reposts add or change (generator.py)
)


@cache
def load(name: str) -> Any:
    """The parsed ``data/<name>.json`` (read once; callers must not mutate it)."""
    if name not in DATA_FILES:
        raise KeyError(f"no sample data file {name!r}")
    path = resources.files("crawldedup_demo") / "data" / f"{name}.json"
    return json.loads(path.read_text(encoding="utf-8"))
