"""Editions from URLs: two pages of one host whose paths differ only in version-like
segments are editions of one document, not copies of each other.

See docs/algorithm.md#editions. ``edition_of(url)`` gives a page its *edition key* (the
host and the path with every version-like segment replaced by ``{v}``) and its
*version* (those segments, in order). Two pages are editions when their keys are equal
and their versions differ; the cascade then asks their texts for a stricter bar
(``[editions]``) before it groups them.

Version-like segments: ``1.11``, ``4.2.x``, ``3.11.2``, ``v2``, ``v1.3``,
``django-4.2``, ``release_2.0``, ``2024-05`` and ``2024-05-17``, and the release
channels ``latest``, ``stable``, ``dev``, ``devel``, ``master``, ``current``,
``nightly``, ``next``, ``lts``. A bare number (``/2/``, ``/20261102/``) is a page or a
date of a news site, not a version; so is a year alone.
"""

from __future__ import annotations

import re

from crawldedup.urls import normalize_url

_VERSION = re.compile(
    r"""^(?:
        (?:[a-z][a-z0-9]*[-_])?v?\d+(?:\.\d+)+(?:\.x)?   # 1.11, 4.2.x, v1.3, django-4.2
      | v\d+                                            # v2
      | \d+\.x                                          # 3.x
      | (?:19|20)\d\d-[01]\d(?:-[0-3]\d)?               # 2024-05, 2024-05-17
      | latest|stable|dev|devel|master|current|nightly|next|lts
    )$""",
    re.VERBOSE | re.IGNORECASE,
)
# Page names keep their extension off the segment test: ``/en/4.2/intro.html``.
_EXTENSION = re.compile(r"\.(?:html?|php|aspx?|jsp|md|txt)$", re.IGNORECASE)


def is_version(segment: str) -> bool:
    """Whether one path segment names a release (see the module doc)."""
    return bool(_VERSION.match(_EXTENSION.sub("", segment)))


def edition_of(url: str) -> tuple[str, str]:
    """(edition key, version) of a page's URL; ("", "") when its path names no version.

    >>> edition_of("https://docs.example.org/en/4.2/ref/models/")
    ('docs.example.org/en/{v}/ref/models', '4.2')
    >>> edition_of("https://news.example.com/a/20261102/000123.html")
    ('', '')
    """
    try:
        host, path = normalize_url(url)
    except ValueError:  # a malformed URL (bad port, bad IPv6) names no version
        return "", ""
    if not host:
        return "", ""
    path, _, query = path.partition("?")
    segments = path.split("/")
    versions = [s for s in segments if s and is_version(s)]
    if not versions:
        return "", ""
    shape = "/".join("{v}" if s and is_version(s) else s for s in segments)
    key = f"{host}{shape}" + (f"?{query}" if query else "")
    return key, "/".join(v.lower() for v in versions)


def are_editions(a: tuple[str, str], b: tuple[str, str]) -> bool:
    """Whether two pages' ``edition_of`` values make them editions of one document."""
    return bool(a[0]) and a[0] == b[0] and a[1] != b[1]
