"""Project configuration: one settings home in the project root; env overrides.

Where the settings come from (`signalint.settings.homes`):

1. The one home in the project root that holds them: `signalint.config.json`,
   `.signalint.json`, the `"signalint"` key of `package.json` or
   `[tool.signalint]` in `pyproject.toml` (same keys, same rules). Two homes
   holding settings are refused, naming both: two sources that could
   disagree would make the effective settings a guess.
2. Otherwise the defaults of the reference parser.

Environment overrides are applied last: `SIGNALINT_MCP_PAYLOAD`,
`SIGNALINT_MONOREPO_MODE` (non-empty values override; invalid ones are errors),
`SIGNALINT_COMPACT`, `SIGNALINT_REMOTE_CACHE` (the shared store's URL; the
other `remoteCache` keys still come from the file),
`SIGNALINT_REMOTE_CACHE_READ_ONLY` and `SIGNALINT_STATE_DIR` (see `state_dir`).

Validation is strict, as the reference promises: an unknown key at any level,
a value of the wrong type (a boolean is never accepted as a number), a bad
enum value or a non-positive number raises `ConfigError` naming the file, the
key path, the value given and what would have been accepted. Every problem
of the file is named in the one error. Nothing is silently ignored.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Final

from pathspec import GitIgnoreSpec
from pathspec.patterns.gitignore import GitIgnorePatternError

from signalint.cache.remote_url import store_options
from signalint.engines.registry import ENGINES
from signalint.settings.homes import (
    CONFIG_FILE,
    DOT_CONFIG_FILE,
    HOMES,
    PACKAGE_FILE,
    PACKAGE_KEY,
    PYPROJECT_FILE,
    ConfigError,
    config_source,
    describe_source,
    key_prefix,
    read_settings,
    timeout_setting,
)

ENGINE_NAMES: Final = tuple(ENGINES)
DEFAULT_IGNORE: Final[tuple[str, ...]] = ("node_modules/**", "dist/**", ".signalint/**")
# Deadlines guard against hung engines; they must never cut a healthy run
# short. Each engine's spec gives its default (and says why).
DEFAULT_TIMEOUTS_MS: Final[Mapping[str, int]] = MappingProxyType(
    {name: engine.spec.timeout_ms for name, engine in ENGINES.items()}
)
PAYLOAD_MODES: Final = ("both", "text", "structured")
MONOREPO_MODES: Final = ("off", "auto", "strict")


_NAMESPACE: Final = re.compile(r"[A-Za-z0-9._-]{1,100}")
REMOTE_URL_ENV: Final = "SIGNALINT_REMOTE_CACHE"


@dataclass(frozen=True, slots=True)
class RemoteSettings:
    """The shared result store (`remoteCache`): its URL, whether this
    machine only reads it, the namespace its values live under, and the
    time budget of one batch of reads. The signing key is never a setting:
    it comes from the environment (`storage.remote.signing_key`)."""

    url: str
    read_only: bool = False
    namespace: str = "signalint"
    timeout_ms: int = 200


MIN_WORKERS_MB = 4096


def default_memory_mb() -> int:
    """`daemon.memoryMb` unless set: a quarter of the machine's memory, at
    least `MIN_WORKERS_MB`. Typed ESLint and tsc on one large project hold
    4-5 GiB together (remeda, docs/real-world.md), and a fixed 4,096 MiB
    evicted one of them after every whole check."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return MIN_WORKERS_MB
    return max(MIN_WORKERS_MB, total // (4 * 1024 * 1024))


@dataclass(frozen=True, slots=True)
class DaemonSettings:
    """Warm engines (`daemon`): how long a project's daemon waits idle
    before it stops (`idleMinutes`), and the resident memory all of a
    process's warm workers may hold together (`memoryMb`); past it the
    least recently used workers are stopped."""

    # A number: a fraction of a minute is allowed (tests use seconds).
    idle_minutes: float = 30
    memory_mb: int = field(default_factory=default_memory_mb)


@dataclass(frozen=True, slots=True)
class EngineSetting:
    """Whether an engine runs, plus its engine-specific options.

    `options` holds every option of the engine's spec (`EngineSpec.options`),
    defaults filled in, so adapters and cache keys never have to guess.
    `chosen`: the settings name the engine (else `enabled` is its default,
    from what the root's files say).
    """

    enabled: bool
    options: Mapping[str, object]
    chosen: bool = False


@dataclass(frozen=True, slots=True)
class Config:
    """The effective settings for one project root (file values + env overrides).

    `source` is the file the values came from (`None`: defaults only).
    """

    engines: Mapping[str, EngineSetting]
    ignore: tuple[str, ...]
    timeouts_ms: Mapping[str, int]
    mcp_payload: str
    monorepo_mode: str
    compact: bool
    snapshot_max: int
    snapshot_ttl_s: float
    cache_max_rows: int
    source: Path | None
    # Diagnostics the MCP server's live buffer holds (`live.maxEntries`, D8).
    live_max_entries: int = 10_000
    # The shared result store (`remoteCache`); None: this machine's cache only.
    remote_cache: RemoteSettings | None = None
    # Warm engines (`daemon`): the daemon's idle stop, the workers' memory.
    daemon: DaemonSettings = DaemonSettings()

    @property
    def enabled_engines(self) -> tuple[str, ...]:
        """Enabled engine names in the canonical order, without those an
        enabled engine replaces (`EngineSpec.replaces`: tsc beside vue-tsc,
        svelte-check or astro, which check its program and the components)."""
        return tuple(
            name
            for name in ENGINE_NAMES
            if self.engines[name].enabled and self.replaced_by(name) is None
        )

    def replaced_by(self, name: str) -> str | None:
        """The enabled engine that replaces engine `name`, if any."""
        return next(
            (
                other
                for other in ENGINE_NAMES
                if self.engines[other].enabled and name in ENGINES[other].spec.replaces
            ),
            None,
        )


def _got(value: object) -> str:
    """How a rejected JSON/TOML value is shown: its JSON spelling or its kind."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    if value is None or isinstance(value, bool | int | float | str):
        return json.dumps(value)
    return type(value).__name__  # TOML dates and times


def _choices(options: tuple[str, ...]) -> str:
    return "one of " + ", ".join(json.dumps(o) for o in options)


class _Checker:
    """Walks the raw value; every refusal carries the full key path.

    A refusal is recorded, not raised, and a stand-in value is returned so
    the walk goes on: `done` then raises one `ConfigError` naming every
    problem of the file, so fixing a config takes one round, not one per key.
    """

    def __init__(self, file: Path | None, prefix: str) -> None:
        self.file = file
        self.prefix = prefix
        self.problems: list[tuple[str | None, str]] = []

    def fail(self, path: str, message: str) -> None:
        location = ".".join(p for p in (self.prefix, path) if p) or None
        self.problems.append((location, message))

    def done(self) -> None:
        if self.problems:
            (location, message), *more = self.problems
            raise ConfigError(self.file, location, message, tuple(more))

    def table(self, value: object, path: str, keys: tuple[str, ...]) -> dict[str, object]:
        """The known keys of an object; `{}` when `value` is not one."""
        if not isinstance(value, dict):
            what = "the top level" if not path else "this key"
            self.fail(path, f"expected an object at {what}, got {_got(value)}")
            return {}
        known: dict[str, object] = {}
        for key, item in value.items():
            if key in keys:
                known[key] = item
            else:
                here = f"{path}.{key}" if path else str(key)
                self.fail(here, f"unknown key; accepted keys here: {', '.join(keys)}")
        return known

    def boolean(self, value: object, path: str) -> bool:
        if not isinstance(value, bool):
            self.fail(path, f"expected a boolean (true or false), got {_got(value)}")
            return False
        return value

    def positive_int(self, value: object, path: str) -> int:
        # bool is an int subclass in Python: `true` must not pass as 1.
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            self.fail(path, f"expected a positive integer, got {_got(value)}")
            return 1
        return value

    def positive_number(self, value: object, path: str) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
            self.fail(path, f"expected a positive number, got {_got(value)}")
            return 1.0
        return float(value)

    def choice(self, value: object, path: str, options: tuple[str, ...]) -> str:
        if not isinstance(value, str) or value not in options:
            self.fail(path, f"expected {_choices(options)}, got {_got(value)}")
            return options[0]
        return value

    def pattern(self, value: object, path: str) -> str | None:
        """The pattern, or None when it is refused."""
        if not isinstance(value, str) or not value.strip():
            self.fail(path, f"expected a non-empty pattern string, got {_got(value)}")
            return None
        try:
            compiled = GitIgnoreSpec.from_lines([value]).patterns
        except GitIgnorePatternError as exc:
            self.fail(path, f"not a valid gitignore pattern: {exc}")
            return None
        if compiled[0].include is None:
            # e.g. "#x" is a comment and "/" matches nothing: a silent no-op.
            self.fail(path, f"{_got(value)} can never match a path (gitignore syntax)")
            return None
        return value


def _build(raw: object, file: Path | None, prefix: str, root: Path) -> Config:
    """Validate the raw file value and fill in defaults (env applied later).

    Raises one `ConfigError` listing every invalid value of the file.
    """
    c = _Checker(file, prefix)
    top = c.table(raw, "", _TOP_KEYS)
    given = c.table(top.get("engines", {}), "engines", ENGINE_NAMES)
    engines: dict[str, EngineSetting] = {}
    for name, engine in ENGINES.items():
        path = f"engines.{name}"
        declared = engine.spec.options
        value = given[name] if name in given else engine.default_enabled(root)
        options: dict[str, object] = dict(declared)
        if isinstance(value, dict) and declared:
            opts = c.table(value, path, tuple(declared))
            for key, flag in opts.items():
                options[key] = c.boolean(flag, f"{path}.{key}")
            value = True
        elif not isinstance(value, bool):
            shape = " or {" + ", ".join(f'"{k}": boolean' for k in declared) + "}"
            c.fail(path, f"expected a boolean{shape if declared else ''}, got {_got(value)}")
            value = False
        engines[name] = EngineSetting(value, MappingProxyType(options), name in given)

    ignore = DEFAULT_IGNORE
    if "ignore" in top:
        items = top["ignore"]
        if not isinstance(items, list):
            c.fail("ignore", f"expected an array of pattern strings, got {_got(items)}")
            items = []
        patterns = (c.pattern(item, f"ignore[{i}]") for i, item in enumerate(items))
        ignore = tuple(p for p in patterns if p is not None)

    timeouts = dict(DEFAULT_TIMEOUTS_MS)
    for name, value in c.table(top.get("timeoutsMs", {}), "timeoutsMs", ENGINE_NAMES).items():
        timeouts[name] = c.positive_int(value, f"timeoutsMs.{name}")

    snapshots = c.table(top.get("snapshots", {}), "snapshots", ("max", "ttlMinutes"))
    cache = c.table(top.get("cache", {}), "cache", ("maxRows",))
    ttl_minutes = c.positive_int(snapshots.get("ttlMinutes", 30), "snapshots.ttlMinutes")
    config = Config(
        engines=MappingProxyType(engines),
        ignore=ignore,
        timeouts_ms=MappingProxyType(timeouts),
        mcp_payload=c.choice(top.get("mcpPayload", "both"), "mcpPayload", PAYLOAD_MODES),
        monorepo_mode=c.choice(top.get("monorepoMode", "off"), "monorepoMode", MONOREPO_MODES),
        compact=False,
        snapshot_max=c.positive_int(snapshots.get("max", 50), "snapshots.max"),
        snapshot_ttl_s=ttl_minutes * 60.0,
        cache_max_rows=c.positive_int(cache.get("maxRows", 200_000), "cache.maxRows"),
        source=file,
        live_max_entries=c.positive_int(
            c.table(top.get("live", {}), "live", ("maxEntries",)).get("maxEntries", 10_000),
            "live.maxEntries",
        ),
        remote_cache=_remote(c, top["remoteCache"]) if "remoteCache" in top else None,
        daemon=_daemon(c, top.get("daemon", {})),
    )
    c.done()
    return config


def _daemon(c: _Checker, value: object) -> DaemonSettings:
    table = c.table(value, "daemon", ("idleMinutes", "memoryMb"))
    return DaemonSettings(
        idle_minutes=c.positive_number(table.get("idleMinutes", 30), "daemon.idleMinutes"),
        memory_mb=c.positive_int(table.get("memoryMb", default_memory_mb()), "daemon.memoryMb"),
    )


def _remote(c: _Checker, value: object) -> RemoteSettings | None:
    keys = ("url", "readOnly", "namespace", "timeoutMs")
    table = c.table(value, "remoteCache", keys)
    # Without `url` the block names its store in SIGNALINT_REMOTE_CACHE
    # (`_env_remote`): a CI job keeps the URL (and its credentials) out of
    # the repository and the other keys in it.
    url = table.get("url", "")
    if "url" in table and (not isinstance(url, str) or not url):
        c.fail("remoteCache.url", f"expected a store URL string, got {_got(url)}")
        url = ""
    elif isinstance(url, str) and url and (problem := _url_problem(url)) is not None:
        c.fail("remoteCache.url", problem)
    if not isinstance(url, str):
        url = ""
    namespace = table.get("namespace", "signalint")
    if not isinstance(namespace, str) or not _NAMESPACE.fullmatch(namespace):
        c.fail(
            "remoteCache.namespace",
            f"expected 1 to 100 letters, digits, '.', '_' or '-', got {_got(namespace)}",
        )
        namespace = "signalint"
    settings = RemoteSettings(
        url=url,
        read_only=c.boolean(table.get("readOnly", False), "remoteCache.readOnly"),
        namespace=namespace,
        timeout_ms=c.positive_int(table.get("timeoutMs", 200), "remoteCache.timeoutMs"),
    )
    return settings if url or "url" not in table else None


def _url_problem(url: str) -> str | None:
    try:
        store_options(url)
    except ValueError as exc:
        return str(exc)
    return None


_TOP_KEYS: Final = (
    "engines",
    "ignore",
    "timeoutsMs",
    "mcpPayload",
    "monorepoMode",
    "snapshots",
    "cache",
    "live",
    "remoteCache",
    "daemon",
)


def _env_choice(env: Mapping[str, str], name: str, options: tuple[str, ...]) -> str | None:
    """A non-empty override must be valid; an empty one means "not set"."""
    value = env.get(name, "")
    if not value:
        return None
    if value not in options:
        raise ConfigError(None, name, f"expected {_choices(options)}, got {json.dumps(value)}")
    return value


_TRUE: Final = ("1", "true", "yes", "on")
_FALSE: Final = ("", "0", "false", "no", "off")


def _env_flag(env: Mapping[str, str], name: str) -> bool:
    value = env.get(name, "").strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ConfigError(
        None, name, f"expected 1 or 0 (also true/false, yes/no, on/off), got {json.dumps(value)}"
    )


def load_config(
    root: Path, env: Mapping[str, str] | None = None, *, settings: Path | None = None
) -> Config:
    """Load and validate the configuration of `root`; apply env overrides.

    `env` defaults to `os.environ`. `settings` is a settings file chosen
    instead of the root's home (`check --config`): a JSON file of the keys
    of `signalint.config.json`, or a `package.json` / `pyproject.toml`
    holding them under its key; its `ignore` patterns still apply from the
    root. Raises `ConfigError` on any invalid value, in a file or in the
    environment, and when the chosen file holds no settings.
    """
    env = os.environ if env is None else env
    source = config_source(root) if settings is None else chosen_source(settings)
    raw: object = {}
    prefix = ""
    if source is not None:
        raw, prefix = read_settings(source), key_prefix(source)
    config = _build(raw, source, prefix, root)
    payload = _env_choice(env, "SIGNALINT_MCP_PAYLOAD", PAYLOAD_MODES)
    monorepo = _env_choice(env, "SIGNALINT_MONOREPO_MODE", MONOREPO_MODES)
    return replace(
        config,
        mcp_payload=payload or config.mcp_payload,
        monorepo_mode=monorepo or config.monorepo_mode,
        compact=_env_flag(env, "SIGNALINT_COMPACT"),
        remote_cache=_env_remote(env, config.remote_cache, source, prefix),
    )


def chosen_source(path: Path) -> Path:
    """`path` as the settings file a command was given (`load_config`'s
    `settings`), noted for a kept answer. Raises `ConfigError` when it holds
    no Signalint settings (a package.json or pyproject.toml without our key)."""
    from signalint import answers

    answers.note([str(path)])
    if read_settings(path) is None:
        raise ConfigError(
            path,
            None,
            f"holds no Signalint settings (expected {describe_source(path)}); "
            "give a JSON file of the keys of signalint.config.json",
        )
    return path


def _env_remote(
    env: Mapping[str, str], file: RemoteSettings | None, source: Path | None, prefix: str
) -> RemoteSettings | None:
    """`SIGNALINT_REMOTE_CACHE` names the store (the file's other keys still
    apply; a `remoteCache` block without `url` needs it); and
    `SIGNALINT_REMOTE_CACHE_READ_ONLY=1` makes it read-only (a CI job
    for untrusted code says so without editing the project's settings)."""
    url = env.get(REMOTE_URL_ENV, "").strip()
    settings = file
    if url:
        problem = _url_problem(url)
        if problem is not None:
            raise ConfigError(None, REMOTE_URL_ENV, problem)
        settings = replace(file, url=url) if file is not None else RemoteSettings(url=url)
    elif file is not None and not file.url:
        location = ".".join(p for p in (prefix, "remoteCache.url") if p)
        raise ConfigError(
            source,
            location,
            f"no store URL: give it here or in {REMOTE_URL_ENV} (e.g. redis://host:6379)",
        )
    if settings is not None and _env_flag(env, "SIGNALINT_REMOTE_CACHE_READ_ONLY"):
        settings = replace(settings, read_only=True)
    return settings


def state_dir(root: Path, env: Mapping[str, str] | None = None) -> Path:
    """Where cache, session log and engine state live for `root`.

    `SIGNALINT_STATE_DIR` when non-empty (a relative value is taken relative
    to the project root, not to whatever directory the process started in,
    so the CLI and the server agree); otherwise `<root>/.signalint`.
    """
    env = os.environ if env is None else env
    override = env.get("SIGNALINT_STATE_DIR", "")
    if override:
        return Path(os.path.abspath(root / os.path.expanduser(override)))
    return root / ".signalint"


__all__ = [
    "CONFIG_FILE",
    "DOT_CONFIG_FILE",
    "HOMES",
    "PACKAGE_FILE",
    "PACKAGE_KEY",
    "PYPROJECT_FILE",
    "REMOTE_URL_ENV",
    "Config",
    "ConfigError",
    "EngineSetting",
    "RemoteSettings",
    "config_source",
    "describe_source",
    "load_config",
    "state_dir",
    "timeout_setting",
]
