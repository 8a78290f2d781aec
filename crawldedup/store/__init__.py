"""Storage behind one small, HBase-shaped interface, with an embedded SQLite backend."""

from crawldedup.store.base import Store, StoreError, StoreStats
from crawldedup.store.open import open_store, resolve_store_url

__all__ = ["Store", "StoreError", "StoreStats", "open_store", "resolve_store_url"]
