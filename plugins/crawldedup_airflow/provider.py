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

# What an empty field of the form means, so that a form saved as shown works. Airflow's
# form has no default value for its standard fields (host, port: a placeholder only), so
# the hook reads an empty host or port as these (crawldedup_airflow.hooks.HBaseHook); the
# extras below have real defaults, which the form fills in. The client's own defaults
# (crawldedup.store.hbase_store.HBaseStore, on happybase's transport and protocol):
# tests/airflow/test_hbase_connection_form.py checks that they agree.
HBASE_DEFAULT_HOST = "127.0.0.1"
HBASE_DEFAULT_PORT = 9090
HBASE_DEFAULT_TABLE_PREFIX = "crawldedup"
HBASE_DEFAULT_TIMEOUT_MS = 60_000
HBASE_DEFAULT_RETRIES = 5
HBASE_TRANSPORTS = ["buffered", "framed"]  # happybase's THRIFT_TRANSPORTS, its default first
HBASE_PROTOCOLS = ["binary", "compact"]  # happybase's THRIFT_PROTOCOLS, its default first

# Host and port are the HBase Thrift server's; schema, login and password are unused.
# The placeholders are what an empty host or port means.
HBASE_UI_FIELD_BEHAVIOUR: dict[str, Any] = {
    "hidden-fields": ["schema", "login", "password"],
    "relabeling": {"host": "Thrift host", "port": "Thrift port"},
    "placeholders": {
        "host": HBASE_DEFAULT_HOST,
        "port": str(HBASE_DEFAULT_PORT),
        "extra": '{"table_prefix": "crawldedup", "timeout_ms": 60000, "retries": 5}',
    },
}

# The extras the store understands (crawldedup_airflow.stores.hbase_store_url), as form
# fields stored under their own names in the connection's extra. Each has a default the
# form shows and saves (JSON schema "default"; Airflow >= 3.2 reads "conn-fields" here);
# transport and protocol are choices ("enum": a dropdown), without null: a null choice
# shows as a literal "null". Cleared, a field is null and the client's default applies.
HBASE_CONN_FIELDS: dict[str, Any] = {
    "table_prefix": {
        "label": "Table prefix",
        "description": "Tables are <prefix>_title_id, <prefix>_days, ... (A-Z a-z 0-9 _ . -).",
        "schema": {"type": ["string", "null"], "default": HBASE_DEFAULT_TABLE_PREFIX},
    },
    "timeout_ms": {
        "label": "Timeout (ms)",
        "description": "Thrift socket timeout per request; keep it above the server's "
        "hbase.thrift.server.socket.read.timeout.",
        "schema": {"type": ["integer", "null"], "minimum": 1, "default": HBASE_DEFAULT_TIMEOUT_MS},
    },
    "retries": {
        "label": "Retries",
        "description": "Reconnect and retry a failed request this many times.",
        "schema": {"type": ["integer", "null"], "minimum": 0, "default": HBASE_DEFAULT_RETRIES},
    },
    "transport": {
        "label": "Thrift transport",
        "description": "As the Thrift server runs: buffered (its default) or framed "
        "(hbase.regionserver.thrift.framed).",
        "schema": {
            "type": ["string", "null"],
            "enum": HBASE_TRANSPORTS,
            "default": HBASE_TRANSPORTS[0],
        },
    },
    "protocol": {
        "label": "Thrift protocol",
        "description": "As the Thrift server runs: binary (its default) or compact "
        "(hbase.regionserver.thrift.compact).",
        "schema": {
            "type": ["string", "null"],
            "enum": HBASE_PROTOCOLS,
            "default": HBASE_PROTOCOLS[0],
        },
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
