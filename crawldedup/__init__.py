"""crawldedup: daily de-duplication of web crawls."""

__version__ = "0.1.0"
