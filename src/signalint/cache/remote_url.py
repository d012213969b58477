"""Remote cache URLs: which shared store a URL names, and how OpenDAL opens it.

Only text handling (no client is imported), so the configuration can
validate `remoteCache.url` and `SIGNALINT_REMOTE_CACHE` when it loads.
"""

from __future__ import annotations

from typing import Final
from urllib.parse import parse_qsl, unquote, urlsplit

SCHEMES: Final = ("redis", "rediss", "s3", "gcs", "ghac", "fs", "webdav", "webdavs")


def store_options(url: str) -> tuple[str, dict[str, str]]:
    """The OpenDAL service and its options for a remote cache URL.

    `redis://[user:password@]host[:port][/db]` (`rediss://` with TLS),
    `s3://bucket/prefix`, `gcs://bucket/prefix`, `ghac://[prefix]`,
    `fs:///shared/directory`, `webdav[s]://[user:password@]host/path`. A
    query string passes options through to the store as OpenDAL names them
    (`s3://bucket?region=eu-west-1&endpoint=http://127.0.0.1:9000`).
    Raises ValueError naming what is wrong and what is accepted.
    """
    accepted = ", ".join(f"{s}://" for s in SCHEMES)
    try:
        parts = urlsplit(url)
        port = parts.port  # raises for a port that is not a number from 0 to 65535
    except ValueError as exc:
        label = url_label(url)
        raise ValueError(f"{label!r} is not a store URL ({exc}); accepted: {accepted}") from None
    scheme = parts.scheme.lower()
    if scheme not in SCHEMES:
        raise ValueError(f"unsupported store {url_label(url)!r}; accepted: {accepted}")
    if not url.lower().startswith(f"{scheme}://"):
        raise ValueError(f"{url_label(url)!r} is not a store URL: expected {scheme}://...")
    options = dict(parse_qsl(parts.query))
    path = unquote(parts.path)
    user, password = unquote(parts.username or ""), unquote(parts.password or "")
    host = parts.hostname or ""
    address = host + (f":{port}" if port else "")
    if scheme in ("redis", "rediss"):
        if not host:
            raise ValueError(f"{url_label(url)}: a redis URL names a host (redis://host:6379)")
        options.setdefault("endpoint", f"{scheme}://{host}:{port or 6379}")
        db = path.strip("/")
        if db:
            if not db.isdigit():
                raise ValueError(f"{url_label(url)}: the path of a redis URL is a database number")
            options.setdefault("db", db)
        return "redis", _credentials(options, user, password)
    if scheme in ("s3", "gcs"):
        if not host:
            raise ValueError(f"{url_label(url)}: name a bucket ({scheme}://bucket/prefix)")
        options.setdefault("bucket", host)
        options.setdefault("root", path or "/")
        return scheme, options
    if scheme == "ghac":
        options.setdefault("root", "/" + (host + path).strip("/"))
        return "ghac", options
    if scheme == "fs":
        if host or not path.startswith("/"):
            raise ValueError(f"{url_label(url)}: an fs URL names an absolute directory (fs:///dir)")
        options.setdefault("root", path)
        return "fs", options
    http = "https" if scheme == "webdavs" else "http"
    options.setdefault("endpoint", f"{http}://{address}")
    options.setdefault("root", path or "/")
    return "webdav", _credentials(options, user, password)


def _credentials(options: dict[str, str], user: str, password: str) -> dict[str, str]:
    if user:
        options.setdefault("username", user)
    if password:
        options.setdefault("password", password)
    return options


def url_label(url: str) -> str:
    """The URL as it may be shown: as written, without the credentials
    (`user:password@`), the query string or the fragment, which may hold
    secrets. Never raises: a URL that does not parse is shown too."""
    shown = url.split("?", 1)[0].split("#", 1)[0]
    scheme, sep, rest = shown.partition("://")
    if not sep:
        return shown
    authority, slash, path = rest.partition("/")
    if "@" in authority:
        authority = authority.rsplit("@", 1)[1]
    return f"{scheme}{sep}{authority}{slash}{path}"


__all__ = ["SCHEMES", "store_options", "url_label"]
