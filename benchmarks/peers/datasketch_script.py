"""The dedup script a user writes first: datasketch MinHash LSH over a crawl folder.

    python benchmarks/peers/datasketch_script.py ROOT OUT.jsonl

Reads ROOT/dt=*/*.jsonl[.gz] in day order (file order within a day), text = ``content``
or, for HTML records, lxml's own tag stripping; character 5-grams of the lower-cased,
whitespace-collapsed text; MinHash with 128 permutations; MinHashLSH at 0.5. Each
document queries the index before it is inserted; a hit makes it a duplicate in the
group of its earliest hit. Writes one ``{"id", "verdict", "group"}`` line per document.
The two other peers (fast_script.py, mllib_script.py) import ``records``, ``shingles``
and ``write_groups`` from here, so all three read and shingle alike.
"""

import gzip
import json
import sys
from pathlib import Path


def records(root, html_text):
    """(id, text) of every record in day order; ids seen before are skipped."""
    seen = set()
    for path in sorted(Path(root).glob("dt=*/*.jsonl*")):
        opener = gzip.open if path.name.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as fh:
            for line in fh:
                rec = json.loads(line)
                if rec["id"] in seen:
                    continue
                seen.add(rec["id"])
                html = rec.get("html") or ""
                yield rec["id"], rec.get("content") or (html_text(html) if html.strip() else "")


def shingles(text, k=5):
    text = " ".join(text.lower().split())
    return {text[i : i + k] for i in range(len(text) - k + 1)} or ({text} if text else set())


def write_groups(out, docs):
    """docs: (id, earlier ids it matched) in order; the earliest hit's group wins."""
    seq, group = {}, {}
    with open(out, "w", encoding="utf-8") as fh:
        for doc_id, hits in docs:
            first = min(hits, key=seq.__getitem__) if hits else None
            group[doc_id] = group[first] if first else doc_id
            seq[doc_id] = len(seq)
            verdict = "duplicate" if first else "unique"
            fh.write(json.dumps({"id": doc_id, "verdict": verdict, "group": group[doc_id]}) + "\n")


def main(root, out):
    import lxml.html
    from datasketch import MinHash, MinHashLSH

    lsh = MinHashLSH(threshold=0.5, num_perm=128)

    def matched():
        for doc_id, text in records(root, lambda h: lxml.html.fromstring(h).text_content()):
            grams = shingles(text)
            if not grams:
                yield doc_id, []
                continue
            m = MinHash(num_perm=128)
            m.update_batch([g.encode("utf-8") for g in grams])
            yield doc_id, lsh.query(m)
            lsh.insert(doc_id, m)

    write_groups(out, matched())


if __name__ == "__main__":
    main(*sys.argv[1:3])
