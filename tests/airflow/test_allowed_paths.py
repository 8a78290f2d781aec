"""The allowed roots of the DAG's path params and the store URL rule (pure, no Airflow).

``wait_for_crawl`` calls these at run time; tests/airflow/test_dag_runs.py checks a refusal
through a real Airflow run.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from crawldedup_airflow.allowed_paths import (
    ALLOW_STORE_URL_ENV,
    ALLOWED_ROOTS_ENV,
    AllowedRoots,
    PathNotAllowedError,
    allowed_roots,
    check_config_store,
    check_path,
    check_run_paths,
    check_store_params,
    store_url_allowed,
)
from crawldedup_airflow.day import RunSetupError


def roots_of(*paths: Path) -> AllowedRoots:
    return allowed_roots({ALLOWED_ROOTS_ENV: os.pathsep.join(str(p) for p in paths)})


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """``crawl/`` (a root) with a day, ``crawl2/`` and ``secret/`` beside it."""
    for sub in ("crawl/dt=2026-11-01", "crawl2", "secret", "home"):
        (tmp_path / sub).mkdir(parents=True)
    return tmp_path.resolve()


def test_a_root_itself_and_paths_below_it_are_allowed(tree: Path) -> None:
    roots = roots_of(tree / "crawl", tree / "home")
    assert check_path("input_root", tree / "crawl", roots) == str(tree / "crawl")
    assert check_path("input_root", f"{tree}/crawl/", roots) == str(tree / "crawl")
    day = tree / "crawl" / "dt=2026-11-01"
    assert check_path("input_root", day, roots) == str(day)
    # Not existing yet is fine (home is created by the stages).
    assert check_path("home", tree / "home" / "new", roots) == str(tree / "home" / "new")
    # `..` that stays inside is resolved, not refused.
    inside = f"{tree}/crawl/dt=2026-11-01/../dt=2026-11-01"
    assert check_path("input_root", inside, roots) == str(day)


def test_dotdot_cannot_escape(tree: Path) -> None:
    roots = roots_of(tree / "crawl")
    escape = f"{tree}/crawl/../secret"
    with pytest.raises(PathNotAllowedError) as err:
        check_path("input_root", escape, roots)
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith(f"input_root param {escape!r} resolves to {tree / 'secret'}, ")
    assert f"outside the allowed roots [{tree / 'crawl'}] ({ALLOWED_ROOTS_ENV})" in message
    assert isinstance(err.value, RunSetupError)  # the sensor fails the task without retries


def test_a_symlink_cannot_escape(tree: Path) -> None:
    roots = roots_of(tree / "crawl")
    (tree / "crawl" / "link").symlink_to(tree / "secret")
    with pytest.raises(PathNotAllowedError, match=re.escape(f"resolves to {tree / 'secret'}")):
        check_path("input_root", tree / "crawl" / "link", roots)
    # A day folder that links out (checked once it exists).
    (tree / "crawl" / "dt=2026-11-02").symlink_to(tree / "secret")
    with pytest.raises(PathNotAllowedError):
        check_path("input_root", tree / "crawl" / "dt=2026-11-02", roots)
    # A link from outside into a root is fine: what counts is where it resolves.
    (tree / "secret" / "in").symlink_to(tree / "crawl")
    assert check_path("input_root", tree / "secret" / "in", roots) == str(tree / "crawl")


def test_a_root_that_is_a_symlink_is_resolved_too(tree: Path) -> None:
    (tree / "root-link").symlink_to(tree / "crawl")
    roots = roots_of(tree / "root-link")
    assert roots.roots == (tree / "crawl",)
    assert check_path("input_root", tree / "crawl" / "x", roots) == str(tree / "crawl" / "x")


def test_a_sibling_with_the_same_prefix_is_not_under_the_root(tree: Path) -> None:
    roots = roots_of(tree / "crawl")
    with pytest.raises(PathNotAllowedError, match="outside the allowed roots"):
        check_path("input_root", tree / "crawl2", roots)
    with pytest.raises(PathNotAllowedError):
        check_path("input_root", f"{tree}/crawl2/dt=2026-11-01", roots)
    with pytest.raises(PathNotAllowedError):
        check_path("input_root", tree, roots)  # the parent of a root


def test_empty_and_relative_values(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    roots = roots_of(tree / "crawl")
    with pytest.raises(PathNotAllowedError, match="input_root param '' names no path"):
        check_path("input_root", "", roots)
    # A relative path resolves against the worker's folder, then is checked like any other.
    monkeypatch.chdir(tree / "crawl")
    assert check_path("input_root", "dt=2026-11-01", roots) == str(tree / "crawl/dt=2026-11-01")
    monkeypatch.chdir(tree)
    with pytest.raises(PathNotAllowedError):
        check_path("input_root", "secret", roots)


def test_unset_setting_allows_the_defaults_folders_only() -> None:
    stock = allowed_roots({})
    assert stock.roots == (Path("/data/crawl"), Path("/data/crawldedup"))
    assert "unset" in stock.source
    assert check_path("input_root", "/data/crawl", stock) == "/data/crawl"
    assert check_path("home", "/data/crawldedup", stock) == "/data/crawldedup"
    assert check_path("home", "/data/crawldedup/x", stock) == "/data/crawldedup/x"
    for outside in ("/data", "/data/crawl2", "/tmp", "/data/crawl/../secret", "/"):
        with pytest.raises(PathNotAllowedError, match="CRAWLDEDUP_ALLOWED_ROOTS unset"):
            check_path("input_root", outside, stock)
    # An empty setting counts as unset.
    assert allowed_roots({ALLOWED_ROOTS_ENV: " "}).roots == stock.roots


def test_unset_setting_follows_the_deployments_defaults(tree: Path) -> None:
    env = {
        "CRAWLDEDUP_INPUT_ROOT": str(tree / "crawl"),
        "CRAWLDEDUP_HOME": str(tree / "home"),
        "CRAWLDEDUP_TOPICS_LIBRARY": str(tree / "secret" / "topics.yaml"),
        "CRAWLDEDUP_CONFIG": str(tree / "home" / "crawldedup.toml"),
    }
    roots = allowed_roots(env)
    # The library's folder; the config's folder is home, already there.
    assert roots.roots == (tree / "crawl", tree / "home", tree / "secret")
    with pytest.raises(PathNotAllowedError):
        check_path("input_root", "/data/crawl", roots)  # the built-in default is not a root now


def test_the_setting_replaces_the_defaults(tree: Path) -> None:
    env = {
        ALLOWED_ROOTS_ENV: f"{tree / 'crawl'}{os.pathsep}{os.pathsep}{tree / 'home'}",
        "CRAWLDEDUP_INPUT_ROOT": str(tree / "secret"),
    }
    roots = allowed_roots(env)
    assert roots.roots == (tree / "crawl", tree / "home")
    assert roots.source == ALLOWED_ROOTS_ENV
    with pytest.raises(PathNotAllowedError, match="not an absolute path"):
        allowed_roots({ALLOWED_ROOTS_ENV: "data/crawl"})


def test_check_run_paths_checks_every_path_param(tree: Path) -> None:
    roots = roots_of(tree / "crawl", tree / "home")
    params = {
        "input_root": f"{tree}/crawl/",
        "home": str(tree / "home"),
        "topics_library": None,
        "config": "",
        "store": None,
    }
    checked = check_run_paths(params, roots)
    assert (checked.input_root, checked.home) == (str(tree / "crawl"), str(tree / "home"))
    assert (checked.topics_library, checked.config) == (None, None)
    library = {**params, "topics_library": str(tree / "home" / "t.yaml")}
    assert check_run_paths(library, roots).topics_library == str(tree / "home" / "t.yaml")
    for name in ("input_root", "home", "topics_library", "config"):
        bad = {**params, name: str(tree / "secret" / "x")}
        with pytest.raises(PathNotAllowedError, match=f"^{name} param "):
            check_run_paths(bad, roots)
    with pytest.raises(PathNotAllowedError, match="home param '' names no path"):
        check_run_paths({**params, "home": ""}, roots)


def test_a_store_url_needs_the_deployment_setting(tree: Path) -> None:
    roots = roots_of(tree / "home")
    assert check_store_params(None, None, roots, {}) is None
    assert check_store_params("", "hbase_backup", roots, {}) is None
    url = "hbase://any-host:9090/x"
    with pytest.raises(PathNotAllowedError) as err:
        check_store_params(url, None, roots, {})
    message = str(err.value)
    assert message.startswith(f"store param {url!r} refused: ") and "\n" not in message
    assert ALLOW_STORE_URL_ENV in message and "store_conn_id" in message
    allow = {ALLOW_STORE_URL_ENV: "true"}
    assert store_url_allowed(allow) and store_url_allowed({ALLOW_STORE_URL_ENV: "YES"})
    assert not store_url_allowed({ALLOW_STORE_URL_ENV: "false"}) and not store_url_allowed({})
    assert check_store_params(url, None, roots, allow) == url
    with pytest.raises(PathNotAllowedError, match="set one of them"):
        check_store_params(url, "hbase_backup", roots, allow)


def test_an_allowed_sqlite_url_must_be_under_the_roots(tree: Path) -> None:
    roots = roots_of(tree / "home")
    allow = {ALLOW_STORE_URL_ENV: "1"}
    inside = f"sqlite://{tree}/home/../home/store.db"
    assert check_store_params(inside, None, roots, allow) == f"sqlite://{tree}/home/store.db"
    for outside in (f"sqlite://{tree}/secret/store.db", f"sqlite://{tree}/home/../x.db"):
        start = "^" + re.escape(f"store param {outside!r} resolves to")
        with pytest.raises(PathNotAllowedError, match=start):
            check_store_params(outside, None, roots, allow)
    # The store opens the URL's path and ignores a host part: so does the check.
    with pytest.raises(PathNotAllowedError, match=re.escape("resolves to /etc/x.db, outside")):
        check_store_params("sqlite://home/etc/x.db", None, roots, allow)


def test_a_config_files_embedded_store_must_be_under_the_roots(tree: Path) -> None:
    """A run's config file (itself under the roots) may name its store: an embedded store
    is held to the roots as the store param is; HBase is the deployment's own setting."""
    roots = roots_of(tree / "home")
    conf = str(tree / "home" / "c.toml")
    inside = f"sqlite://{tree}/home/../home/store.db"
    assert check_config_store(inside, conf, roots) == f"sqlite://{tree}/home/store.db"
    assert check_config_store(None, conf, roots) is None
    hbase = "hbase://hbase-thrift.internal:9090/crawl"
    assert check_config_store(hbase, conf, roots) == hbase
    outside = f"sqlite://{tree}/secret/store.db"
    want = f"config file {conf}: store_url {outside!r} resolves to {tree}/secret/store.db, outside"
    with pytest.raises(PathNotAllowedError, match="^" + re.escape(want)):
        check_config_store(outside, conf, roots)
    with pytest.raises(PathNotAllowedError, match=re.escape("resolves to /etc/x.db, outside")):
        check_config_store("sqlite://home/etc/x.db", conf, roots)


def test_the_report_route_serves_only_a_day_report_under_the_roots(tmp_path: Path) -> None:
    """What the "Day report" route may serve (the path comes from the report task's
    XCom, never from the request): a reports/dt=D/index.html that exists under a root."""
    from crawldedup_airflow.report_pages import NotAReportPage, report_page

    home = tmp_path / "home"
    page = home / "reports" / "dt=2026-11-02" / "index.html"
    page.parent.mkdir(parents=True)
    page.write_text("<html></html>")
    secret = tmp_path / "elsewhere" / "reports" / "dt=2026-11-02" / "index.html"
    secret.parent.mkdir(parents=True)
    secret.write_text("<html>not for the UI</html>")
    other = home / "work" / "dt=2026-11-02" / "report.json"
    other.parent.mkdir(parents=True)
    other.write_text("{}")
    roots = roots_of(home)

    assert report_page(str(page), roots) == page.resolve()
    for pushed, says in (
        (None, "wrote no HTML page"),
        (str(secret), "outside the allowed roots"),
        (str(home / "reports" / ".." / ".." / "elsewhere" / "reports"), "outside the allowed"),
        (str(other), "is not a day report"),
        (str(home / "reports" / "dt=2026-11-03" / "index.html"), "is gone; write it again"),
    ):
        with pytest.raises(NotAReportPage, match=says):
            report_page(pushed, roots)
