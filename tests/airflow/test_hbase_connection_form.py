"""The ``hbase`` connection form (Admin → Connections → Add), saved as it is shown, gives a
connection the store can use (issue 32, point 3).

Airflow 3.3's form takes its fields from the provider info (``conn-fields``: JSON schema
with ``default`` and ``enum``; ``ui-field-behaviour``: labels and placeholders of host and
port, which have no default value). Checked three ways: the provider info against the
client's own defaults (happybase's transports and protocols, ``HBaseStore``'s options);
what ``ProvidersManager`` makes of it in a fresh Airflow (what the form is built from);
and a connection created through the REST API of a real ``airflow api-server`` from
exactly what the form would send untouched, which ``HBaseHook`` then turns into a store.
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import happybase.connection
import httpx

from crawldedup.store.hbase_store import HBaseStore
from crawldedup_airflow.provider import (
    HBASE_CONN_FIELDS,
    HBASE_DEFAULT_HOST,
    HBASE_DEFAULT_PORT,
    HBASE_UI_FIELD_BEHAVIOUR,
    get_provider_info,
)
from crawldedup_airflow.stores import DEFAULT_TABLE_PREFIX, DEFAULT_THRIFT_PORT
from tests.airflow.conftest import ApiServer, airflow_env, run_child

# What a form saved as shown must give (options in crawldedup.store.open.HBASE_OPTIONS order).
FORM_URL = (
    "hbase://127.0.0.1:9090/crawldedup?timeout_ms=60000&retries=5&transport=buffered"
    "&protocol=binary"
)


def test_the_form_fields_default_to_what_the_client_does() -> None:
    (conn,) = get_provider_info()["connection-types"]
    fields = conn["conn-fields"]
    assert fields is HBASE_CONN_FIELDS
    schema = {name: field["schema"] for name, field in fields.items()}
    # Transport and protocol: happybase's choices, its default first and preselected; no
    # null among the choices (the form showed it as a literal "null").
    assert schema["transport"]["enum"] == list(happybase.connection.THRIFT_TRANSPORTS)
    assert schema["transport"]["default"] == happybase.connection.DEFAULT_TRANSPORT
    assert schema["protocol"]["enum"] == list(happybase.connection.THRIFT_PROTOCOLS)
    assert schema["protocol"]["default"] == happybase.connection.DEFAULT_PROTOCOL
    # Every field has a value, the one the store uses when the field is cleared.
    client = inspect.signature(HBaseStore).parameters
    for name in ("timeout_ms", "retries", "transport", "protocol"):
        assert schema[name]["default"] == client[name].default, name
    assert schema["table_prefix"]["default"] == DEFAULT_TABLE_PREFIX == client["prefix"].default
    for name, field in fields.items():
        assert None not in field["schema"].get("enum", []), name
        assert "default" in field["schema"], name
    # Host and port have placeholders only: they are what an empty field means.
    placeholders = HBASE_UI_FIELD_BEHAVIOUR["placeholders"]
    assert placeholders["host"] == HBASE_DEFAULT_HOST == "127.0.0.1"
    assert placeholders["port"] == str(HBASE_DEFAULT_PORT) == str(DEFAULT_THRIFT_PORT)
    assert client["port"].default == HBASE_DEFAULT_PORT


FORM_CHILD = r"""
import json
from pathlib import Path
from airflow.providers_manager import ProvidersManager
from airflow.api_fastapi.core_api.services.ui.connections import HookMetaService
pm = ProvidersManager()
out = {
    "widgets": {k: w.field for k, w in pm.connection_form_widgets.items()
                if k.startswith("extra__hbase__")},
    "behaviour": pm.field_behaviours.get("hbase"),
    # What GET /ui/connections/hook_meta answers, the form's source.
    "hook_meta": [m.model_dump() for m in HookMetaService.hook_meta_data()
                  if m.connection_type == "hbase"],
}
print("RESULT " + json.dumps(out, default=str))
"""


def test_the_providers_manager_gives_the_form_its_defaults(tmp_path: Path) -> None:
    out = run_child(FORM_CHILD, airflow_env(tmp_path / "airflow"))
    widgets = out["widgets"]
    assert widgets["extra__hbase__transport"]["value"] == "buffered"
    assert widgets["extra__hbase__transport"]["schema"]["enum"] == ["buffered", "framed"]
    assert widgets["extra__hbase__protocol"]["value"] == "binary"
    assert widgets["extra__hbase__protocol"]["schema"]["enum"] == ["binary", "compact"]
    assert widgets["extra__hbase__table_prefix"]["value"] == "crawldedup"
    assert widgets["extra__hbase__timeout_ms"]["value"] == 60000
    assert widgets["extra__hbase__retries"]["value"] == 5
    assert out["behaviour"]["placeholders"]["host"] == "127.0.0.1"
    assert out["behaviour"]["placeholders"]["port"] == "9090"

    (meta,) = out["hook_meta"]
    assert meta["hook_name"] == "HBase (crawldedup store)"
    assert meta["standard_fields"]["host"] == {
        "hidden": False,
        "title": "Thrift host",
        "placeholder": "127.0.0.1",
    }
    assert meta["standard_fields"]["login"]["hidden"] is True
    shown = {name: field["value"] for name, field in meta["extra_fields"].items()}
    assert shown == {
        "table_prefix": "crawldedup",
        "timeout_ms": 60000,
        "retries": 5,
        "transport": "buffered",
        "protocol": "binary",
    }


HOOK_CHILD = r"""
import json, sys
import airflow  # noqa: F401  (configures Airflow, which puts the plugins folder on sys.path)
from crawldedup.store import open_store
from crawldedup_airflow.hooks import HBaseHook, resolve_store
conn_id = sys.argv[1]
url = HBaseHook(conn_id).store_url()
store = open_store(url)  # parses the URL; connects on first use only
print("RESULT " + json.dumps({
    "url": url,
    "store": [type(store).__name__, store.host, store.port, store.prefix],
    "resolved": resolve_store(None, "/srv/h", store_conn_id=conn_id),
}))
"""


def test_a_connection_saved_from_the_form_as_shown_gives_a_valid_store_url(
    api_server: ApiServer,
) -> None:
    api = httpx.Client(base_url=api_server.url, headers=api_server.headers, timeout=60)
    # What the form is built from, as the UI asks for it.
    meta = api.get("/ui/connections/hook_meta")
    assert meta.status_code == 200, meta.text
    (hbase,) = [m for m in meta.json() if m["connection_type"] == "hbase"]
    # The form untouched but for its id: empty host and port are not sent; the extra is
    # the JSON of the extra fields' values (the UI's connection form does the same).
    extra = {name: field["value"] for name, field in hbase["extra_fields"].items()}
    body = {"connection_id": "hbase_form", "conn_type": "hbase", "extra": json.dumps(extra)}
    created = api.post("/api/v2/connections", json=body)
    assert created.status_code == 201, created.text
    saved = api.get("/api/v2/connections/hbase_form").json()
    assert (saved["conn_type"], saved["host"], saved["port"]) == ("hbase", None, None)
    assert json.loads(saved["extra"]) == {
        "table_prefix": "crawldedup",
        "timeout_ms": 60000,
        "retries": 5,
        "transport": "buffered",
        "protocol": "binary",
    }

    # The hook reads it from the metadata DB the API server wrote, as it does in the API
    # server (the form's Test button) or the scheduler: a server process.
    server = {**api_server.env, "_AIRFLOW_PROCESS_CONTEXT": "server"}
    out = run_child(HOOK_CHILD, server, "hbase_form")
    assert out["url"] == FORM_URL
    assert out["store"] == ["HBaseStore", "127.0.0.1", 9090, "crawldedup"]
    assert out["resolved"] == [FORM_URL, "connection hbase_form (the store_conn_id param)"]

    # An explicit host and port win over the defaults; a cleared choice is the default.
    body = {
        "connection_id": "hbase_edited",
        "conn_type": "hbase",
        "host": "hbase-thrift.internal",
        "port": 9095,
        "extra": json.dumps({**extra, "transport": "framed", "protocol": None}),
    }
    assert api.post("/api/v2/connections", json=body).status_code == 201
    out = run_child(HOOK_CHILD, server, "hbase_edited")
    assert out["url"] == (
        "hbase://hbase-thrift.internal:9095/crawldedup?timeout_ms=60000&retries=5&transport=framed"
    )
