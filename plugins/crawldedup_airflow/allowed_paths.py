"""Allowed roots: which folders and store a DAG run may use, checked at run time.

Anyone who may trigger the DAG sets its Params, so a param must not be able to send the
day's data somewhere the deployment did not choose. ``wait_for_crawl`` (the first task)
checks them here and puts the checked values into its XCom, which every later task reads
(``day.stage_args``, ``day.run_config``, the report task); no task uses these params
directly.

- **Paths.** ``input_root``, ``home``, ``topics_library`` and ``config`` must resolve
  (``os.path.realpath``: ``..`` and symbolic links are followed first, so neither can
  escape) to one of the allowed roots or below it; so must the day folder
  ``{input_root}/dt=D`` (a link there could point anywhere). The roots are the deployment setting
  ``CRAWLDEDUP_ALLOWED_ROOTS`` (``os.pathsep``-separated absolute folders), else the
  folders of the params' deployment defaults: ``CRAWLDEDUP_INPUT_ROOT`` (``/data/crawl``),
  ``CRAWLDEDUP_HOME`` (``/data/crawldedup``) and the folders holding
  ``CRAWLDEDUP_TOPICS_LIBRARY`` and ``CRAWLDEDUP_CONFIG`` when set. A stock deployment
  thus accepts its defaults and nothing else.
- **Store.** The store is named by an Airflow connection (the ``store_conn_id`` param, or
  ``hbase_default``, else the embedded store under ``home``), which only those who manage
  connections define. A free ``store`` URL is refused unless the deployment sets
  ``CRAWLDEDUP_ALLOW_STORE_URL=true``; an embedded ``sqlite://`` URL must then resolve
  under the allowed roots too.

Pure (no Airflow import): the unit tests call it directly. Every refusal is a
:class:`PathNotAllowedError` (a :class:`~crawldedup_airflow.day.RunSetupError`) whose
message is one line naming the param, the resolved path and the allowed roots.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from crawldedup_airflow.day import RunSetupError

ALLOWED_ROOTS_ENV = "CRAWLDEDUP_ALLOWED_ROOTS"
"""Deployment setting: the folders run params may point into (``os.pathsep``-separated)."""

ALLOW_STORE_URL_ENV = "CRAWLDEDUP_ALLOW_STORE_URL"
"""Deployment setting: ``true`` lets the ``store`` param name a store URL."""

DEFAULT_INPUT_ROOT = "/data/crawl"
"""The ``input_root`` param's default when ``CRAWLDEDUP_INPUT_ROOT`` is unset."""

DEFAULT_HOME = "/data/crawldedup"
"""The ``home`` param's default when ``CRAWLDEDUP_HOME`` is unset."""

PATH_PARAMS: tuple[str, ...] = ("input_root", "home", "topics_library", "config")
"""The params that name files or folders on the workers; each must be under a root."""

_TRUE = ("1", "true", "yes")

__all__ = [
    "ALLOWED_ROOTS_ENV",
    "ALLOW_STORE_URL_ENV",
    "DEFAULT_HOME",
    "DEFAULT_INPUT_ROOT",
    "PATH_PARAMS",
    "AllowedRoots",
    "CheckedPaths",
    "PathNotAllowedError",
    "allowed_roots",
    "check_config_store",
    "check_path",
    "check_run_paths",
    "check_store_params",
    "store_url_allowed",
]


class PathNotAllowedError(RunSetupError):
    """A param names a path outside the allowed roots, or a store the deployment forbids."""


def _real(path: str | Path) -> Path:
    """``path`` with ``~`` expanded, made absolute, ``..`` and symbolic links resolved."""
    return Path(os.path.realpath(os.path.expanduser(os.fspath(path))))


@dataclass(frozen=True)
class AllowedRoots:
    """The resolved roots and where they came from (for the refusal's message)."""

    roots: tuple[Path, ...]
    source: str

    def allows(self, resolved: Path) -> bool:
        """Whether an already resolved path is a root or below one (by whole path parts:
        ``/data/crawl2`` is not under ``/data/crawl``)."""
        return any(resolved.is_relative_to(root) for root in self.roots)

    def describe(self) -> str:
        listed = ", ".join(str(root) for root in self.roots) or "none"
        return f"[{listed}] ({self.source})"


def _default_roots(env: Mapping[str, str]) -> list[str]:
    """The folders of the params' deployment defaults (see the module docstring)."""
    roots = [
        env.get("CRAWLDEDUP_INPUT_ROOT") or DEFAULT_INPUT_ROOT,
        env.get("CRAWLDEDUP_HOME") or DEFAULT_HOME,
    ]
    for file_env in ("CRAWLDEDUP_TOPICS_LIBRARY", "CRAWLDEDUP_CONFIG"):
        if env.get(file_env):
            roots.append(os.path.dirname(_real(env[file_env])))
    return roots


def allowed_roots(env: Mapping[str, str] | None = None) -> AllowedRoots:
    """The allowed roots of this deployment (``env``: the process environment by default).

    ``CRAWLDEDUP_ALLOWED_ROOTS`` when set and not empty, else the defaults' folders. Each
    root is resolved like the paths it is compared with; a relative entry is refused
    (it would depend on the worker's current folder).
    """
    env = os.environ if env is None else env
    setting = env.get(ALLOWED_ROOTS_ENV, "")
    entries = [entry.strip() for entry in setting.split(os.pathsep) if entry.strip()]
    if entries:
        source = ALLOWED_ROOTS_ENV
        for entry in entries:
            if not os.path.isabs(os.path.expanduser(entry)):
                raise PathNotAllowedError(
                    f"{ALLOWED_ROOTS_ENV} entry {entry!r} is not an absolute path; fix the "
                    "deployment setting (absolute folders, separated by "
                    f"{os.pathsep!r})"
                )
    else:
        entries = _default_roots(env)
        source = (
            f"{ALLOWED_ROOTS_ENV} unset: the folders of the params' defaults; set it to "
            "allow others"
        )
    roots: list[Path] = []
    for entry in entries:
        root = _real(entry)
        if root not in roots:
            roots.append(root)
    return AllowedRoots(tuple(roots), source)


def check_path(name: str, value: str | Path, roots: AllowedRoots, shown: str | None = None) -> str:
    """The resolved ``value`` of param ``name``, if it is under one of ``roots``.

    Raises :class:`PathNotAllowedError` (one line: the param, its value, what it resolves
    to, the allowed roots) otherwise, or when the value is empty. ``shown``: the param's
    value as given, when ``value`` is a part of it (the path of a store URL).
    """
    text = os.fspath(value)
    given = shown if shown is not None else text
    if not text.strip():
        raise PathNotAllowedError(
            f"{name} param {given!r} names no path: give one under {roots.describe()}"
        )
    resolved = _real(text)
    if not roots.allows(resolved):
        raise PathNotAllowedError(
            f"{name} param {given!r} resolves to {resolved}, outside the allowed roots "
            f"{roots.describe()}"
        )
    return str(resolved)


@dataclass(frozen=True)
class CheckedPaths:
    """A run's path params, resolved and checked: what its later tasks use."""

    input_root: str
    home: str
    topics_library: str | None
    config: str | None


def check_run_paths(params: Mapping[str, Any], roots: AllowedRoots) -> CheckedPaths:
    """Check every path param of a run (``PATH_PARAMS``); the optional ones may be empty."""

    def optional(name: str) -> str | None:
        value = params.get(name)
        return check_path(name, str(value), roots) if value else None

    return CheckedPaths(
        input_root=check_path("input_root", str(params.get("input_root") or ""), roots),
        home=check_path("home", str(params.get("home") or ""), roots),
        topics_library=optional("topics_library"),
        config=optional("config"),
    )


def store_url_allowed(env: Mapping[str, str] | None = None) -> bool:
    """Whether this deployment lets the ``store`` param name a URL."""
    env = os.environ if env is None else env
    return env.get(ALLOW_STORE_URL_ENV, "").strip().lower() in _TRUE


def check_store_params(
    store: str | None,
    store_conn_id: str | None,
    roots: AllowedRoots,
    env: Mapping[str, str] | None = None,
) -> str | None:
    """The ``store`` param's URL when the deployment allows it (an embedded ``sqlite://``
    URL rewritten to its resolved path), else None when it is empty; raises
    :class:`PathNotAllowedError` when it is given but not allowed, or given together with
    ``store_conn_id``. Run before the store is resolved (``hooks.resolve_store``)."""
    if not store:
        return None
    if store_conn_id:
        raise PathNotAllowedError(
            f"store param {store!r} and store_conn_id param {store_conn_id!r} are both set: "
            "set one of them"
        )
    if not store_url_allowed(env):
        raise PathNotAllowedError(
            f"store param {store!r} refused: this deployment takes the store from a "
            f"connection, not a URL ({ALLOW_STORE_URL_ENV} is not true); name an Airflow "
            "connection in store_conn_id, or leave both empty for hbase_default (else the "
            "embedded store under home)"
        )
    parsed = urlparse(store)
    if parsed.scheme == "sqlite":
        # The path crawldedup.store.open_store opens: the URL's path part.
        return f"sqlite://{check_path('store', parsed.path, roots, shown=store)}"
    return store


def check_config_store(
    store_url: str | None, config: str | None, roots: AllowedRoots
) -> str | None:
    """The ``store_url`` of the run's config file, checked as the ``store`` param's path is:
    an embedded ``sqlite://`` store must resolve under the allowed roots (rewritten to its
    resolved path); another store (HBase) is the deployment's own setting and passes.
    Raises :class:`PathNotAllowedError` naming the file otherwise."""
    if not store_url:
        return None
    parsed = urlparse(store_url)
    if parsed.scheme != "sqlite":
        return store_url
    resolved = _real(parsed.path or ".")
    if not parsed.path or not roots.allows(resolved):
        raise PathNotAllowedError(
            f"config file {config}: store_url {store_url!r} resolves to {resolved}, outside "
            f"the allowed roots {roots.describe()}"
        )
    return f"sqlite://{resolved}"
