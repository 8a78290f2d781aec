"""``HBaseHook``: our store from an Airflow Connection (conn type ``hbase``).

The only place Airflow-side code opens a store. The Spark stages open HBase themselves,
on the executors, from the ``hbase://`` URL this hook builds (``--store``), through
``crawldedup.store.hbase_store``, which owns happybase, pooling, batching and retries.

A connection, e.g. from the CLI::

    airflow connections add hbase_default --conn-type hbase \\
        --conn-host 127.0.0.1 --conn-port 9090 \\
        --conn-extra '{"table_prefix": "crawldedup", "timeout_ms": 60000, "retries": 5}'

(the type is registered by this package's provider entry point, see
:mod:`crawldedup_airflow.provider`: the Connections form shows Thrift host, port and
the extras as fields, the extras with their defaults; an empty host or port is
127.0.0.1:9090, what the form shows greyed), or as an environment variable (JSON form)::

    AIRFLOW_CONN_HBASE_DEFAULT='{"conn_type": "hbase", "host": "127.0.0.1", "port": 9090,
                                 "extra": {"table_prefix": "crawldedup"}}'
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from airflow.sdk import BaseHook
from airflow.sdk.exceptions import AirflowNotFoundException

from crawldedup_airflow.provider import (
    HBASE_CONN_TYPE,
    HBASE_DEFAULT_HOST,
    HBASE_DEFAULT_PORT,
    HBASE_HOOK_NAME,
    HBASE_UI_FIELD_BEHAVIOUR,
)
from crawldedup_airflow.stores import StoreSetupError, embedded_store_url, hbase_store_url

if TYPE_CHECKING:
    from airflow.sdk import Connection

    from crawldedup.store import Store


class HBaseHook(BaseHook):
    """Builds the crawldedup store URL and :class:`~crawldedup.store.Store` of a Connection.

    Connection fields: ``host`` and ``port`` of the HBase Thrift server (empty: 127.0.0.1
    and 9090, the form's placeholders); ``extra`` with ``table_prefix`` and the client
    options ``timeout_ms``, ``retries``, ``transport``, ``protocol`` (plus ``pool_size``,
    ``backoff_s``).

    :param hbase_conn_id: the Airflow connection id (default ``hbase_default``).
    """

    conn_name_attr = "hbase_conn_id"
    default_conn_name = "hbase_default"
    conn_type = HBASE_CONN_TYPE
    hook_name = HBASE_HOOK_NAME

    def __init__(self, hbase_conn_id: str = default_conn_name, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.hbase_conn_id = hbase_conn_id

    @classmethod
    def get_ui_field_behaviour(cls) -> dict[str, Any]:
        """The Connections form's hints (Airflow < 3.2 asks the hook; later versions read
        the same from the provider info, :mod:`crawldedup_airflow.provider`)."""
        return {
            "hidden_fields": list(HBASE_UI_FIELD_BEHAVIOUR["hidden-fields"]),
            "relabeling": dict(HBASE_UI_FIELD_BEHAVIOUR["relabeling"]),
            "placeholders": dict(HBASE_UI_FIELD_BEHAVIOUR["placeholders"]),
        }

    @classmethod
    def connection_exists(cls, conn_id: str = default_conn_name) -> bool:
        """Whether ``conn_id`` is defined (in the metadata DB, env vars or a secrets backend)."""
        try:
            cls.get_connection(conn_id)
        except AirflowNotFoundException:
            return False
        return True

    def store_url(self) -> str:
        """The ``hbase://host:port/prefix?options`` URL the Spark stages get as ``--store``."""
        return connection_store_url(self.get_connection(self.hbase_conn_id))

    def get_conn(self) -> Store:
        """An open :class:`~crawldedup.store.Store` on this connection's tables; close it."""
        return self.open_url(self.store_url())

    @staticmethod
    def open_url(url: str) -> Store:
        """Open the store a URL names (``hbase://`` or ``sqlite://``).

        Airflow code opens every store through here, also the embedded one and URLs
        given as a run param, so that one place decides how a task talks to a store.
        """
        # Imported here: crawldedup.store.hbase_store imports happybase, which DAG parsing
        # must not pay for.
        from crawldedup.store import open_store

        return open_store(url)

    def test_connection(self) -> tuple[bool, str]:
        """Reach the Thrift server and read the ``days`` table (the UI's Test button).

        Like the pipeline's first call, this creates the prefix's tables when missing.
        """
        try:
            url = self.store_url()
            with self.get_conn() as store:
                days = sum(1 for _ in store.scan("days", keys_only=True))
        except Exception as exc:
            return False, f"{type(exc).__name__}: {exc}"
        return True, f"{url}: reachable, {days} day(s) reported"


def connection_store_url(conn: Connection) -> str:
    """The store URL of an ``hbase`` Connection: an empty host or port is the form's
    placeholder (127.0.0.1, 9090), so that a connection saved from the form as shown
    works; the extra as :func:`~crawldedup_airflow.stores.hbase_store_url` checks it."""
    host = (conn.host or "").strip() or HBASE_DEFAULT_HOST
    return hbase_store_url(host, conn.port or HBASE_DEFAULT_PORT, conn.extra_dejson)


def resolve_store(
    param_store: str | None,
    home: str,
    conn_id: str = HBaseHook.default_conn_name,
    store_conn_id: str | None = None,
    config_store: str | None = None,
) -> tuple[str, str]:
    """The store URL of a run, and where it came from (for the log): the one precedence
    of both roads (docs/operations.md#which-store).

    1. ``param_store``, a URL the sensor already let through
       (``allowed_paths.check_store_params``: only when the deployment allows free URLs);
       the CLI's ``--store``;
    2. else the ``store_conn_id`` param's connection, which must exist and be of type
       ``hbase`` (raises :class:`StoreSetupError` otherwise);
    3. else the config file's ``store_url`` (``config_store``), as for the CLI;
    4. else the ``hbase_default`` connection (``conn_id``) when it exists (production);
    5. else the embedded SQLite store under ``home``.

    Called at run time only: looking up a Connection while parsing would hit the secrets
    backend on every parse.
    """
    if param_store:
        return param_store, "the store param"
    if store_conn_id:
        try:
            conn = HBaseHook.get_connection(store_conn_id)
        except AirflowNotFoundException:
            raise StoreSetupError(
                f"store_conn_id param {store_conn_id!r}: no such connection; define it "
                f"(conn type {HBASE_CONN_TYPE}) or leave store_conn_id empty for "
                f"the config file's store_url, {conn_id} or the embedded store under home"
            ) from None
        if conn.conn_type != HBASE_CONN_TYPE:
            raise StoreSetupError(
                f"store_conn_id param {store_conn_id!r}: connection type is "
                f"{conn.conn_type!r}, not {HBASE_CONN_TYPE!r} (the crawldedup store)"
            )
        url = connection_store_url(conn)
        return url, f"connection {store_conn_id} (the store_conn_id param)"
    if config_store:
        return config_store, "the config file's store_url"
    if HBaseHook.connection_exists(conn_id):
        return HBaseHook(conn_id).store_url(), f"connection {conn_id}"
    return embedded_store_url(home), "the embedded default under home"
