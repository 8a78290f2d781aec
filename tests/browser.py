"""A real browser for tests that look at pages as a person does: Debian's Chromium
(``apt-get install chromium``) driven by Playwright, with no browser download.

Tests that need it skip, saying what to install, where the machine has no Chromium.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("CRAWLDEDUP_TEST_CHROMIUM", "/usr/bin/chromium")


def require_chromium() -> None:
    if not Path(CHROMIUM).is_file():
        pytest.skip(f"no system Chromium at {CHROMIUM} (apt-get install -y chromium)")
    pytest.importorskip("playwright.sync_api")


@contextmanager
def chromium() -> Iterator[Any]:
    """A launched headless Chromium (a Playwright ``Browser``)."""
    require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield browser
        finally:
            browser.close()
