"""Main-text extraction engines and their fallbacks, on HTML pages whose text is known.

    python -m benchmarks.extraction --days 3 --per-day 1600 --seed 13 \\
        [--legacy-fallbacks /tmp/html_text_old.py] [--limit N]

The pages are the HTML records of the real-text crawl that
``python -m benchmarks.realtext.build --out DIR --days 3 --per-day 1600 --seed 13``
writes (same arguments, same records): the builder is run in this process, so each
page's base text (the paragraphs the page was rendered from, ``Doc.page.text``) is at
hand. Per variant, on one core:

* ``ms``: mean milliseconds a page (the engine call and its fallback only);
* ``recall``: share of the base text's character 5-grams found in the extracted text;
* ``noise``: share of the extracted text's 5-grams that are not in the base text (the
  template that came along: navigation, meta lines, links);
* the same two on pages whose base text is under 300 characters (``<300``);
* ``empty``: pages with no text at all.

5-grams are of the text lower-cased with only letters, digits and CJK ideographs kept
(the project's normalization); page means, so a short page counts as much as a long one.
A first line equal to the page's title (its ``<h1>``) is dropped from every variant's
text, as ``extract_html`` does. ``--legacy-fallbacks`` names a copy of the lxml
fallbacks this project had before resiliparse
(``git show 5c88178:crawldedup/ingest/html_text.py > /tmp/html_text_old.py``), to
measure them on top of either engine.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from .realtext.build import Builder
from .realtext.corpus import load_corpus

_KEEP = re.compile(r"[^0-9a-z\u3400-\u9fff]+")
SHORT = 300


def grams(text: str) -> set[str]:
    flat = _KEEP.sub("", text.lower())
    return {flat[i : i + 5] for i in range(max(0, len(flat) - 4))} or ({flat} if flat else set())


def lines(text: str) -> str:
    kept = (" ".join(line.split()) for line in text.splitlines())
    return "\n".join(line for line in kept if line)


def pages(days: int, per_day: int, seed: int) -> list[tuple[str, str, str]]:
    """(html, title, base text) of every HTML record the builder writes."""
    builder = Builder(load_corpus(log=lambda _m: None), days, per_day, seed)
    builder.build()
    return [(d.page.html, d.page.title, d.page.text) for d in builder.docs if d.page.html]


# --- the variants: html -> text ---------------------------------------------------------


def resiliparse_variants() -> dict[str, Callable[[str], str]]:
    from resiliparse.extract.html2text import extract_plain_text
    from resiliparse.parse.html import HTMLTree

    from crawldedup.ingest.html_text import TEMPLATE_SKIP, after_heading, page_title
    from crawldedup.ingest.records import RESILIPARSE_OPTIONS

    def raw(html: str) -> str:
        return extract_plain_text(HTMLTree.parse(html), main_content=True)

    def retry(html: str, skip: list[str] | None = None, heading: bool = False) -> str:
        tree = HTMLTree.parse(html)
        text = ""
        for main_content in (True, False):
            opts = {**RESILIPARSE_OPTIONS, "main_content": main_content, "skip_elements": skip}
            text = lines(extract_plain_text(tree, **opts))
            if text:
                break
        return after_heading(text, page_title(tree)) if heading else text

    return {
        "resiliparse raw (defaults)": raw,
        "resiliparse lines + retry whole page": retry,
        "  + template names (skip_elements)": lambda h: retry(h, TEMPLATE_SKIP),
        "  + title heading (after_heading)": lambda h: retry(h, None, True),
        "  + template names + title heading": lambda h: retry(h, TEMPLATE_SKIP, True),
    }


def trafilatura_raw(html: str) -> str:
    import trafilatura

    doc = trafilatura.bare_extraction(
        html,
        with_metadata=True,
        include_comments=False,
        include_tables=True,
        date_extraction_params={"extensive_search": False},
    )
    return "" if doc is None else str(doc.text or "")


def legacy_variants(path: Path) -> dict[str, Callable[[str], str]]:
    """The lxml fallbacks of ``path`` (clean_page + own_text) on top of each engine."""
    import trafilatura

    spec = importlib.util.spec_from_file_location("legacy_html_text", path)
    assert spec is not None and spec.loader is not None
    legacy: ModuleType = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = legacy  # its dataclasses look their module up
    spec.loader.exec_module(legacy)
    rp = resiliparse_variants()["resiliparse lines + retry whole page"]

    def on_top(text: str, html: str) -> str:
        tree = trafilatura.load_html(html)
        page = legacy.clean_page(tree) if tree is not None else None
        own = legacy.own_text(text, page) if page is not None else None
        return own if own is not None else text

    return {
        "resiliparse lines + retry + lxml fallbacks": lambda h: on_top(rp(h), h),
        "trafilatura + lxml fallbacks (as at 5c88178)": lambda h: on_top(trafilatura_raw(h), h),
    }


def product_variants() -> dict[str, Callable[[str], str]]:
    from crawldedup.ingest.records import extract_html

    return {
        f"extract_html engine={engine}": (lambda h, e=engine: extract_html(h, None, e)[1])
        for engine in ("resiliparse", "trafilatura")
    }


# --- measuring --------------------------------------------------------------------------


def measure(
    fn: Callable[[str], str], docs: list[tuple[str, str, str]], product: bool
) -> dict[str, float]:
    rows: list[tuple[bool, float, float | None]] = []
    empty = 0
    seconds = 0.0
    for html, title, base in docs:
        t0 = time.process_time()
        text = fn(html)
        seconds += time.process_time() - t0
        if not product:  # extract_html drops the <h1> line itself
            first, _, rest = text.partition("\n")
            if first.strip() == title.strip():
                text = rest
        got, want = grams(text), grams(base)
        if not got:
            empty += 1
        recall = len(got & want) / len(want) if want else 1.0
        noise = len(got - want) / len(got) if got else None
        rows.append((len(_KEEP.sub("", base.lower())) < SHORT, recall, noise))

    def mean(values: list[float]) -> float:
        return sum(values) / len(values) if values else float("nan")

    short = [r for r in rows if r[0]]
    return {
        "ms": 1000 * seconds / len(docs),
        "recall": mean([r[1] for r in rows]),
        "noise": mean([r[2] for r in rows if r[2] is not None]),
        "recall<300": mean([r[1] for r in short]),
        "noise<300": mean([r[2] for r in short if r[2] is not None]),
        "empty": empty,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--days", type=int, default=3)
    ap.add_argument("--per-day", type=int, default=1600)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--legacy-fallbacks", type=Path, default=None)
    ap.add_argument("--limit", type=int, default=0, help="first N pages only (0: all)")
    args = ap.parse_args(argv)
    docs = pages(args.days, args.per_day, args.seed)
    if args.limit:
        docs = docs[: args.limit]
    n_short = sum(1 for _, _, b in docs if len(_KEEP.sub("", b.lower())) < SHORT)
    print(f"{len(docs)} HTML pages ({n_short} with a base text under {SHORT} chars), "
          f"{sum(map(len, (h for h, _, _ in docs))) / len(docs) / 1000:.1f} KB mean")  # fmt: skip
    # Variants that drop the title's line themselves are measured as extract_html is.
    variants: list[tuple[str, Callable[[str], str], bool]] = [
        (name, fn, "heading" in name) for name, fn in resiliparse_variants().items()
    ]
    variants.append(("trafilatura raw", trafilatura_raw, False))
    if args.legacy_fallbacks is not None:
        variants += [(n, f, False) for n, f in legacy_variants(args.legacy_fallbacks).items()]
    variants += [(name, fn, True) for name, fn in product_variants().items()]
    head = f"{'variant':46s} {'ms':>6s} {'recall':>7s} {'noise':>6s} {'rec<300':>7s} "
    print(head + f"{'noi<300':>7s} {'empty':>5s}")
    for name, fn, product in variants:
        m = measure(fn, docs, product)
        cells = f"{m['ms']:6.2f} {m['recall']:7.3f} {m['noise']:6.3f} {m['recall<300']:7.3f}"
        print(f"{name:46s} {cells} {m['noise<300']:7.3f} {m['empty']:5d}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
