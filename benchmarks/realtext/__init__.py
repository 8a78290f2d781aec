"""An evaluation set that crawldedup did not write (issue 13, deliverable 1).

Base texts come from packaged text written by people (Debian packages and PyPI sdists at
pinned versions, see ``corpus``); ``reposting`` turns them into copies and hard
negatives the way other sites repost articles, with code of its own that imports
nothing from ``crawldedup``; ``build`` writes a 3-day crawl with its truth::

    python -m benchmarks.realtext.build --out DIR --days 3 --per-day 1600 --seed 13
    python benchmarks/realtext_quality.py --data DIR
"""
