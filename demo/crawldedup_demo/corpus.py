"""The sample crawl's articles: text banks and a tiny template engine.

Articles are composed from per-topic sentence templates. A template mixes fixed
wording, alternatives ``[a|b|c]`` (one is picked) and slots ``{name}``:

* ``{int:a-b}`` / ``{dec:a-b}`` / ``{pct}``: fresh random numbers on every use;
* ``{date}``, ``{month}``, ``{month_name}``, ``{year}``: the article's date;
* ``{quote}``: a quote from the topic bank, never repeated inside one article;
* any other name (``{city}``, ``{org}``, ``{person2}`` …): drawn once per article
  from the topic vocabulary (falling back to the language-wide one) and then
  reused, so an article keeps talking about the same city, company and people.
  A trailing digit (``{city2}``) means "another one of the same kind".

Two articles of one topic therefore share templates but not their fillings or
their mix of alternatives, which keeps different articles genuinely different
in wording (their character cosine stays well below the 0.9 duplicate bar; the
generator checks that for every pair that could be confused).

The banks themselves (names, places, per-topic templates and vocabularies, generic
sentences, notices, short texts) are package data, one file per language:
``demo/crawldedup_demo/data/corpus_zh.json`` and ``corpus_en.json``, read on first use.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from crawldedup_demo import _data

__all__ = [
    "LANGS",
    "Article",
    "Filler",
    "Topic",
    "compose_article",
    "compose_notice",
    "compose_short_text",
    "compose_title",
    "notice_subjects",
    "topics_for",
]

LANGS = ("zh", "en")


@dataclass(frozen=True)
class Topic:
    """One subject area: title, lead, body, quote and ending templates plus vocabulary."""

    name: str
    lang: str
    titles: tuple[str, ...]
    leads: tuple[str, ...]
    body: tuple[str, ...]
    quotes: tuple[str, ...]
    endings: tuple[str, ...] = ()
    vocab: dict[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class _Bank:
    """Everything ``data/corpus_<lang>.json`` holds, as tuples."""

    topics: tuple[Topic, ...]
    family_names: tuple[str, ...]
    given_names: tuple[str, ...]
    common: dict[str, tuple[str, ...]]  # slot vocabulary shared by the language's topics
    generic: tuple[str, ...]  # sentences any article may use once its own bank runs dry
    quote_frames: tuple[str, ...]
    endings: tuple[str, ...]
    notices: tuple[tuple[str, ...], ...]  # per notice subject, its sentences
    notice_signers: tuple[str, ...]
    short: dict[str, tuple[str, ...]]  # short poems and notes


def _vocab_words(value: list[str] | dict[str, Any]) -> tuple[str, ...]:
    """A vocabulary: a list of words, or ``{prefix, suffix, sep}`` (every combination)."""
    if isinstance(value, dict):
        sep = value.get("sep", "")
        return tuple(a + sep + b for a in value["prefix"] for b in value["suffix"])
    return tuple(value)


@cache
def _bank(lang: str) -> _Bank:
    if lang not in LANGS:
        raise ValueError(f"no sample corpus for language {lang!r}")
    raw = _data.load(f"corpus_{lang}")
    topics = tuple(
        Topic(
            name=t["name"],
            lang=lang,
            titles=tuple(t["titles"]),
            leads=tuple(t["leads"]),
            body=tuple(t["body"]),
            quotes=tuple(t["quotes"]),
            endings=tuple(t.get("endings", ())),
            vocab={k: _vocab_words(v) for k, v in t.get("vocab", {}).items()},
        )
        for t in raw["topics"]
    )
    return _Bank(
        topics=topics,
        family_names=tuple(raw["names"]["family"]),
        given_names=tuple(raw["names"]["given"]),
        common={k: _vocab_words(v) for k, v in raw["common"].items()},
        generic=tuple(raw["generic"]),
        quote_frames=tuple(raw["quote_frames"]),
        endings=tuple(raw["endings"]),
        notices=tuple(tuple(n) for n in raw["notices"]),
        notice_signers=tuple(raw.get("notice_signers", ())),
        short={k: tuple(v) for k, v in raw["short"].items()},
    )


def __getattr__(name: str) -> tuple[Topic, ...]:
    # ZH_TOPICS / EN_TOPICS (no longer in __all__) stay importable, loaded on first access.
    if name in ("ZH_TOPICS", "EN_TOPICS"):
        return _bank(name[:2].lower()).topics
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# Long articles drift into a related topic once their own bank runs dry.
_RELATED: dict[str, tuple[str, ...]] = {
    "tech": ("finance",),
    "finance": ("tech",),
    "sports": ("local", "health"),
    "health": ("education", "sports"),
    "travel": ("local",),
    "education": ("local",),
    "local": ("travel", "education"),
    "culture": ("education",),
}


def topics_for(lang: str) -> tuple[Topic, ...]:
    """The topics available in ``lang`` ("zh" or "en")."""
    return _bank(lang).topics


# --------------------------------------------------------------------------- engine

_MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip
_ALT = re.compile(r"\[([^\[\]]*)\]")
_SLOT = re.compile(r"\{([a-z_]+?)(\d?)(?::(-?\d+)-(-?\d+))?\}")


class Filler:
    """Fills templates for one article, remembering entity choices (city, org, person…)."""

    def __init__(self, rng: random.Random, lang: str, topic: Topic, day: dt.date) -> None:
        self.rng = rng
        self.lang = lang
        self.topic = topic
        self.day = day
        self.memo: dict[str, str] = {}
        # Quotes come from the main topic only: a health article quoting a chip
        # maker reads wrong even when each sentence is fine.
        quotes = list(topic.quotes)
        rng.shuffle(quotes)
        self._quotes = quotes

    def _vocab(self, name: str) -> tuple[str, ...]:
        if name in self.topic.vocab:
            return self.topic.vocab[name]
        common = _bank(self.lang).common
        if name in common:
            return common[name]
        raise KeyError(f"no vocabulary for slot {{{name}}} in {self.topic.name}/{self.lang}")

    def person(self) -> str:
        """A random personal name in the article's language."""
        bank = _bank(self.lang)
        if self.lang == "zh":
            return self.rng.choice(bank.family_names) + self.rng.choice(bank.given_names)
        return f"{self.rng.choice(bank.given_names)} {self.rng.choice(bank.family_names)}"

    def _entity(self, name: str, suffix: str) -> str:
        key = name + suffix
        if key in self.memo:
            return self.memo[key]
        # "Another one of the same kind": avoid the values already used for siblings.
        taken = {v for k, v in self.memo.items() if k.rstrip("0123456789") == name}
        value = ""
        for _ in range(20):
            if name == "person":
                value = self.person()
            else:
                value = self.fill(self.rng.choice(self._vocab(name)))
            if value not in taken:
                break
        self.memo[key] = value
        return value

    def _slot(self, m: re.Match[str]) -> str:
        name, suffix, lo, hi = m.group(1), m.group(2), m.group(3), m.group(4)
        rng = self.rng
        if name == "int":
            return str(rng.randint(int(lo), int(hi)))
        if name == "dec":
            return f"{rng.uniform(int(lo), int(hi)):.1f}"
        if name == "pct":
            return f"{rng.uniform(0.5, 45.0):.1f}%"
        if name == "year":
            return str(self.day.year)
        if name == "month":
            return str(self.day.month)
        if name == "month_name":
            return _MONTHS[self.day.month - 1]
        if name == "date":
            # News usually reports yesterday's or today's events.
            d = self.day - dt.timedelta(days=rng.choice((0, 0, 1)))
            if self.lang == "zh":
                return f"{d.month}月{d.day}日"
            return f"{_MONTHS[d.month - 1]} {d.day}"
        if name == "quote":
            if not self._quotes:
                self._quotes = list(self.topic.quotes)
                rng.shuffle(self._quotes)
            return self.fill(self._quotes.pop())
        return self._entity(name, suffix)

    def fill(self, template: str) -> str:
        """Expand alternatives, then slots, of one template."""
        text = _ALT.sub(lambda m: self.rng.choice(m.group(1).split("|")), template)
        return _SLOT.sub(self._slot, text)


@dataclass(frozen=True)
class Article:
    """A composed article: title plus paragraphs of plain text."""

    lang: str
    topic: str
    title: str
    paragraphs: tuple[str, ...]

    @property
    def text(self) -> str:
        """Paragraphs joined the way the language's sites usually do it."""
        return _join_paragraphs(self.lang, self.paragraphs)


def _cap(text: str) -> str:
    # English templates may start with a lower-case slot ("principal Jane Doe says").
    return text[:1].upper() + text[1:] if text[:1].islower() else text


def _join_paragraphs(lang: str, paragraphs: tuple[str, ...] | list[str]) -> str:
    return ("\n" if lang == "zh" else "\n\n").join(paragraphs)


def _sentence_join(lang: str, sentences: list[str]) -> str:
    return ("" if lang == "zh" else " ").join(sentences)


_PLACES = ("city", "district", "road", "community")


def _fill_from(source: list[tuple[Filler, str]], main: Filler, borrowed: Filler) -> str:
    """Fill the next template of ``source``, keeping places in sync between fillers."""
    filler, template = source.pop()
    for key, value in main.memo.items():
        if key.startswith(_PLACES):
            borrowed.memo.setdefault(key, value)
    text = filler.fill(template)
    for key, value in borrowed.memo.items():
        if key.startswith(_PLACES):
            main.memo.setdefault(key, value)
    return _cap(text)


def compose_title(rng: random.Random, lang: str, topic: Topic, day: dt.date) -> str:
    """A fresh title for ``topic`` (used for re-titled reposts too)."""
    return _cap(Filler(rng, lang, topic, day).fill(rng.choice(topic.titles)))


def _target_length(rng: random.Random) -> int:
    # Most news items are short to medium; a minority are long features.
    bucket = rng.random()
    if bucket < 0.35:
        return rng.randint(300, 600)
    if bucket < 0.85:
        return rng.randint(600, 1100)
    return rng.randint(1100, 2400)


def compose_article(
    rng: random.Random,
    lang: str,
    day: dt.date,
    topic: Topic | None = None,
    min_chars: int = 300,
    max_chars: int = 2500,
    target: int | None = None,
) -> Article:
    """Compose one article of ``min_chars``..``max_chars`` characters (text only, no title).

    The lead, body sentences (without repetition), an optional quote and an
    ending are filled through one ``Filler`` so entities stay consistent.
    Long articles borrow sentences from a second topic, the way features drift
    from, say, local news into travel.
    """
    bank = _bank(lang)
    topics = bank.topics
    topic = topic or rng.choice(topics)
    # Long pieces drift into a *related* topic once the main bank runs dry.
    extra_name = rng.choice(_RELATED[topic.name])
    extra = next(t for t in topics if t.name == extra_name)
    filler = Filler(rng, lang, topic, day)
    # Borrowed sentences use the related topic's own vocabulary (a "校长" must not
    # turn up in a street-works sentence) but share the article's places.
    borrowed = Filler(rng, lang, extra, day)
    borrowed.memo = {k: v for k, v in filler.memo.items() if k.startswith(_PLACES)}
    title = _cap(filler.fill(rng.choice(topic.titles)))
    goal = min(max(target or _target_length(rng), min_chars), max_chars)

    pool = [(filler, t) for t in topic.body]
    rng.shuffle(pool)
    spare = [(borrowed, t) for t in extra.body]
    spare += [(filler, t) for t in bank.generic]
    rng.shuffle(spare)
    frames = bank.quote_frames
    endings = list(topic.endings) + list(bank.endings)

    paragraphs: list[str] = [_cap(filler.fill(rng.choice(topic.leads)))]
    quote_at = rng.randint(1, 4) if rng.random() < 0.6 else -1
    ending = _cap(filler.fill(rng.choice(endings))) if rng.random() < 0.5 else ""
    gap = 1 if lang == "zh" else 2  # paragraph separator length
    size = len(paragraphs[0]) + (len(ending) + gap if ending else 0)
    while size < goal and (pool or spare):
        if len(paragraphs) == quote_at:
            para = _cap(filler.fill(rng.choice(frames)))
        else:
            sentences: list[str] = []
            for _ in range(rng.randint(2, 4)):
                source = pool if pool else spare
                if not source:
                    break
                sentences.append(_fill_from(source, filler, borrowed))
            para = _sentence_join(lang, sentences)
        if not para:
            break
        if size + gap + len(para) > max_chars:
            break
        paragraphs.append(para)
        size += gap + len(para)
    if ending:
        paragraphs.append(ending)
    # Top up a too-short article sentence by sentence (rare: tiny targets).
    while len(_join_paragraphs(lang, paragraphs)) < min_chars and (pool or spare):
        source = pool if pool else spare
        paragraphs.insert(-1 if ending else len(paragraphs), _fill_from(source, filler, borrowed))
    return Article(lang=lang, topic=topic.name, title=title, paragraphs=tuple(paragraphs))


# --------------------------------------------------------------------------- notices


def compose_notice(rng: random.Random, lang: str, day: dt.date, subject: int) -> str:
    """The body of a short official notice about ``subject`` (index into the bank).

    Notice subjects are a few sentences specific to the subject, so two notices on
    different subjects share little wording even under the same generic title.
    """
    bank = _bank(lang)
    filler = Filler(rng, lang, rng.choice(bank.topics), day)
    sentences = [filler.fill(t) for t in bank.notices[subject % len(bank.notices)]]
    if lang == "zh":
        org = filler.fill(rng.choice(bank.notice_signers))
        body = "".join(sentences) + ("特此通知。" if rng.random() < 0.5 else "")
        return f"{body}\n{org}\n{day.year}年{day.month}月{day.day}日"
    return " ".join(sentences) + f"\n\n{_MONTHS[day.month - 1]} {day.day}, {day.year}"


def notice_subjects(lang: str) -> int:
    """How many different notice subjects the bank holds for ``lang``."""
    return len(_bank(lang).notices)


# --------------------------------------------------------------------------- short texts


def compose_short_text(rng: random.Random, lang: str) -> tuple[str, str]:
    """A (title, text) pair of a short poem or notice, 20-80 characters of text."""
    short = _bank(lang).short
    if lang == "zh":
        if rng.random() < 0.5:
            lines = rng.sample(short["poem_lines"], 4)
            text = f"{lines[0]}，{lines[1]}。\n{lines[2]}，{lines[3]}。"
            return rng.choice(short["poem_titles"]), text
        return rng.choice(short["note_titles"]), rng.choice(short["notes"])
    text = rng.choice(short["texts"])
    return rng.choice(short["titles"]), text
