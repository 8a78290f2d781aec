"""Provider metadata: registers the ``hbase`` connection type with Airflow.

Airflow learns connection types from installed providers only: a distribution with an
``apache_airflow_provider`` entry point (``pyproject.toml``:
``[project.entry-points.apache_airflow_provider] provider_info =
"crawldedup_airflow.provider:get_provider_info"``) whose function returns this dict.
``ProvidersManager`` then imports :class:`crawldedup_airflow.hooks.HBaseHook` for the
type, and the Connections form takes its fields from ``ui-field-behaviour`` and
``conn-fields`` (Airflow >= 3.2 reads them here, without importing the hook; the hook's
``get_ui_field_behaviour`` returns the same for older Airflow).

Pure data, no imports: the providers manager calls this in every Airflow process.
"""

from __future__ import annotations

from typing import Any

HBASE_CONN_TYPE = "hbase"
HBASE_HOOK_NAME = "HBase (crawldedup store)"
HBASE_HOOK_CLASS = "crawldedup_airflow.hooks.HBaseHook"

# Host and port are the HBase Thrift server's; schema, login and password are unused.
HBASE_UI_FIELD_BEHAVIOUR: dict[str, Any] = {
    "hidden-fields": ["schema", "login", "password"],
    "relabeling": {"host": "Thrift host", "port": "Thrift port"},
    "placeholders": {
        "host": "127.0.0.1",
        "port": "9090",
        "extra": '{"table_prefix": "crawldedup", "timeout_ms": 60000, "retries": 5}',
    },
}

# The extras the store understands (crawldedup_airflow.stores.hbase_store_url), as form
# fields stored under their own names in the connection's extra.
HBASE_CONN_FIELDS: dict[str, Any] = {
    "table_prefix": {
        "label": "Table prefix",
        "description": "Tables are <prefix>_title_id, <prefix>_days, ... (A-Z a-z 0-9 _ . -). "
        "Empty: crawldedup.",
        "schema": {"type": ["string", "null"]},
    },
    "timeout_ms": {
        "label": "Timeout (ms)",
        "description": "Thrift socket timeout per request; keep it above the server's "
        "hbase.thrift.server.socket.read.timeout. Empty: the client's default.",
        "schema": {"type": ["integer", "null"], "minimum": 1},
    },
    "retries": {
        "label": "Retries",
        "description": "Reconnect and retry a failed request this many times. Empty: the "
        "client's default.",
        "schema": {"type": ["integer", "null"], "minimum": 0},
    },
    "transport": {
        "label": "Thrift transport",
        "description": "buffered (the Thrift server's default) or framed. Empty: buffered.",
        "schema": {"type": ["string", "null"], "enum": ["buffered", "framed", None]},
    },
    "protocol": {
        "label": "Thrift protocol",
        "description": "binary (the Thrift server's default) or compact. Empty: binary.",
        "schema": {"type": ["string", "null"], "enum": ["binary", "compact", None]},
    },
}


def get_provider_info() -> dict[str, Any]:
    """What ``ProvidersManager`` reads (``airflow/provider_info.schema.json``)."""
    return {
        # Must equal the distribution's name (the providers manager checks).
        "package-name": "crawldedup",
        "name": "crawldedup",
        "description": "crawldedup: the HBase store connection (conn type hbase) of the "
        "crawl_dedup_daily DAG.",
        "connection-types": [
            {
                "connection-type": HBASE_CONN_TYPE,
                "hook-class-name": HBASE_HOOK_CLASS,
                "hook-name": HBASE_HOOK_NAME,
                "ui-field-behaviour": HBASE_UI_FIELD_BEHAVIOUR,
                "conn-fields": HBASE_CONN_FIELDS,
            }
        ],
    }
