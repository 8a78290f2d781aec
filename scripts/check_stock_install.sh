#!/usr/bin/env bash
# Installs the project the way a user with the pip their Python ships does, and checks
# that it works (issue 12): a fresh venv WITHOUT upgrading pip, `pip install .`
# (not editable, no extras), then `crawldedup run` on a day of one HTML record and one
# plain record. Exits non-zero unless the run succeeds, both records get a verdict and
# nothing is quarantined (a pip that leaves out a dependency used to quarantine every
# HTML record as extraction_failed while the run exited 0).
# Downloads are cached by pip under ~/.cache/pip. Usage: scripts/check_stock_install.sh
# (PYTHON=python3.12 to pick another interpreter; KEEP=1 keeps the temporary folder).
set -euo pipefail
t0=$SECONDS
d="$(mktemp -d "${TMPDIR:-/tmp}/crawldedup-stock.XXXXXX")"
[[ -n "${KEEP:-}" ]] || trap 'rm -rf "$d"' EXIT
# env.sh pins Java 17; pointed at the new venv, it also puts that venv's bin/ first on
# PATH and makes it the Python of Spark's workers (PYSPARK_PYTHON).
export CRAWLDEDUP_VENV="$d/v"
source "$(dirname "$0")/env.sh"
PY="${PYTHON:-python3}"
"$PY" -c 'import sys; assert sys.version_info >= (3, 11), "Python >= 3.11 needed"'

"$PY" -m venv "$d/v"
echo "stock-install: $("$d/v/bin/python" -V), $("$d/v/bin/python" -m pip --version)"
echo "stock-install: pip install $ROOT"
"$d/v/bin/pip" install -q --cache-dir "${PIP_CACHE_DIR:-$HOME/.cache/pip}" "$ROOT"
echo "stock-install: installed in $((SECONDS - t0))s"

day=2026-11-02
input="$d/crawl/dt=$day"
mkdir -p "$input"
"$d/v/bin/python" - "$input/part-00000.jsonl" "$ROOT/tests/data/news_article.html" <<'EOF'
import json
import sys

html = open(sys.argv[2], encoding="utf-8").read()
plain = (
    "The regional rail operator will run extra trains on the coastal line this winter, "
    "adding four services a day between the harbour and the airport from December.\n"
    "The company said passenger numbers had grown by a fifth since the spring, and that "
    "the new timetable would cut waiting times at the busiest stations to ten minutes."
)
records = [
    {
        "id": "html-1",
        "url": "https://ledger.example/local/riverside-park",
        "html": html,
        "fetched_at": "2026-11-02T08:15:00Z",
    },
    {
        "id": "plain-1",
        "url": "https://coastnews.example/transport/extra-trains",
        "title": "Extra trains for the coastal line this winter",
        "content": plain,
        "fetched_at": "2026-11-02T09:30:00Z",
    },
]
with open(sys.argv[1], "w", encoding="utf-8") as fh:
    for rec in records:
        fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
EOF

cli="$d/v/bin/crawldedup"
home="$d/home"
echo "stock-install: $cli run --date $day"
"$cli" run --date "$day" --input "$input" --home "$home"
verdicts="$("$cli" verdicts --date "$day" --home "$home")"
report="$("$cli" report --date "$day" --home "$home")"
fail=0
n="$(printf '%s\n' "$verdicts" | grep -c . || true)"
if [[ "$n" != 2 ]]; then
  echo "stock-install: FAILED: $n verdicts, expected 2:" >&2
  printf '%s\n' "$verdicts" >&2
  fail=1
fi
quarantined="$("$d/v/bin/python" -c 'import json, sys; r = json.loads(sys.argv[1]); print(r["quarantined_total"], json.dumps(r["quarantined"]))' "$report")"
if [[ "$quarantined" != "0 "* ]]; then
  echo "stock-install: FAILED: quarantined $quarantined; see $home/quarantine/dt=$day/" >&2
  fail=1
fi
if [[ "$fail" != 0 ]]; then
  [[ -n "${KEEP:-}" ]] || echo "stock-install: rerun with KEEP=1 to keep $d" >&2
  exit 1
fi
printf '%s\n' "$verdicts"
echo "stock-install: OK, 2 verdicts, nothing quarantined, in $((SECONDS - t0))s"
