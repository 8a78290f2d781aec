"""URL normalization for mirror detection: one page, several URLs or hosts.

See docs/algorithm.md#grouping.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit

TRACKING_PARAMS = frozenset(
    {"gclid", "fbclid", "spm", "from", "ref", "share", "source", "mc_cid", "mc_eid", "igshid"}
)
DEFAULT_PORTS = {"http": 80, "https": 443}


def normalize_url(url: str) -> tuple[str, str]:
    """(host, path+query) with scheme, ``www.``, default ports, fragments, trailing
    slashes and tracking parameters (utm_*, gclid, spm, …) removed; query sorted."""
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").lower()
    if host.startswith("www."):
        host = host[4:]
    if parts.port and parts.port != DEFAULT_PORTS.get(parts.scheme.lower()):
        host = f"{host}:{parts.port}"
    path = parts.path or "/"
    while path.endswith("/") and len(path) > 1:
        path = path[:-1]
    query = [
        (k, v)
        for k, v in parse_qsl(parts.query, keep_blank_values=True)
        if not k.lower().startswith("utm_") and k.lower() not in TRACKING_PARAMS
    ]
    return host, path + (f"?{urlencode(sorted(query))}" if query else "")
