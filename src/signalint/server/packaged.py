"""The handshake answers shipped with the package, for a server's very first start.

`server.front` answers `initialize` and `tools/list` from what the SDK
answered at an earlier start in the same project. The first start has no
such record, and would wait about a second for the SDK to load. This module
keeps the SDK's answers in the package itself (`handshake.json`, written by
`python -m signalint.server.packaged`), made by running the real server once
per protocol version the SDK negotiates, with the default settings.

They are used only where they are exactly what the SDK would answer
(`_identity`, `_default_settings`):

- the same SDK: the installed versions of `mcp`, `mcp_types`, `pydantic` and
  `pydantic_core`, read from their `.dist-info` directories (no import);
- the same Signalint: the content of every Signalint module the server had
  loaded when it built its answers (listed in the file, hashed at start);
- the default payload mode and compact keys: neither
  `SIGNALINT_MCP_PAYLOAD` nor `SIGNALINT_COMPACT` is set, and no settings file
  of the project holds an `mcpPayload` other than "both" (a file that does
  not parse and could name it counts as one that does), so the tool list's
  output schemas are the default ones.

Anything else, or `SIGNALINT_MCP_PACKAGED=0`, leaves the answering to the
recorded answers or the SDK, as before. A test holds the shipped file to
the current sources and SDK (`tests/server/test_packaged.py`).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any, Final

from signalint.server.front import (
    PACKAGED_SWITCH,
    SETTINGS_FILES,
    SETTINGS_VARIABLES,
    Recorded,
    package_dir,
)

FILE: Final = Path(__file__).with_name("handshake.json")
DEFAULT_PAYLOAD: Final = "both"
SDK_DISTRIBUTIONS: Final = ("mcp", "mcp_types", "pydantic", "pydantic_core")
_PACKAGE: Final = Path(__file__).resolve().parent.parent  # the signalint package


def _installed_version(name: str) -> str | None:
    """The version of the distribution whose top-level package `name` is
    imported, from the `.dist-info` directory beside it; None when there is
    not exactly one."""
    found = package_dir(name)
    if found is None:
        return None
    versions = [
        p.name[len(name) + 1 : -len(".dist-info")] for p in found.parent.glob(f"{name}-*.dist-info")
    ]
    return versions[0] if len(versions) == 1 else None


def _sources_digest(files: list[str]) -> str | None:
    digest = hashlib.sha256()
    for rel in files:
        try:
            content = (_PACKAGE / rel).read_bytes()
        except OSError:
            return None
        digest.update(f"{rel}\0{len(content)}\0".encode())
        digest.update(content)
    return digest.hexdigest()


def _identity(files: list[str]) -> dict[str, Any]:
    """What the shipped answers depend on, computed from what is installed."""
    return {
        "sdk": {name: _installed_version(name) for name in SDK_DISTRIBUTIONS},
        "sources": {"files": files, "digest": _sources_digest(files)},
    }


def _sets_payload(value: object) -> bool:
    """Whether a parsed settings file holds an `mcpPayload` other than the
    default anywhere (where it counts is `config`'s business; anywhere is
    the safe side)."""
    if isinstance(value, dict):
        return any(
            (key == "mcpPayload" and item != DEFAULT_PAYLOAD) or _sets_payload(item)
            for key, item in value.items()
        )
    if isinstance(value, list):
        return any(_sets_payload(item) for item in value)
    return False


def _default_settings(root: Path, env: dict[str, str]) -> bool:
    if any(env.get(name, "") for name in SETTINGS_VARIABLES):
        return False
    for name in SETTINGS_FILES:
        try:
            content = (root / name).read_bytes()
        except FileNotFoundError:
            continue
        except OSError:
            return False
        if b"mcpPayload" not in content and b"\\u" not in content and b"\\U" not in content:
            continue  # cannot name the setting
        try:
            if name.endswith(".toml"):
                import tomllib

                parsed: object = tomllib.loads(content.decode())
            else:
                parsed = json.loads(content)
        except (ValueError, UnicodeDecodeError):
            return False
        if _sets_payload(parsed):
            return False
    return True


def fill(recorded: Recorded, root: Path, env: dict[str, str] | None = None) -> bool:
    """Add the shipped answers to `recorded` where it has none and they
    apply to this start (module docstring); whether they did."""
    env = dict(os.environ) if env is None else env
    if env.get(PACKAGED_SWITCH, "").strip() == "0" or not _default_settings(root, env):
        return False
    try:
        shipped = json.loads(FILE.read_bytes())
        files = shipped["identity"]["sources"]["files"]
        initialize, tools = shipped["initialize"], shipped["tools"]
    except (OSError, ValueError, KeyError, TypeError):
        return False
    if not isinstance(files, list) or shipped["identity"] != _identity(files):
        return False
    if not isinstance(initialize, dict) or not isinstance(tools, dict):
        return False
    recorded.initialize = {**initialize, **recorded.initialize}
    if recorded.tools is None:
        recorded.tools = tools
    return True


# Lists, in a fresh interpreter, the Signalint modules a server has loaded
# once it can build its answers (the SDK server and everything it imports).
_LIST_MODULES: Final = """
import json, sys
import signalint.server.app
print(json.dumps(sorted(m.__file__ for n, m in list(sys.modules.items())
    if n.split(".")[0] == "signalint" and getattr(m, "__file__", None))))
"""


def _answer_modules() -> list[str]:
    """Every Signalint module the server's answers can depend on, relative
    to the package (`_LIST_MODULES`)."""
    from signalint import process

    command = process.Command((sys.executable, "-c", _LIST_MODULES), _PACKAGE, 120.0)
    done = process.run_blocking(command)
    if done.exit_code != 0:
        raise RuntimeError(f"listing the server's modules failed: {done.stderr.strip()}")
    paths = [Path(p).resolve() for p in json.loads(done.stdout)]
    return sorted(p.relative_to(_PACKAGE).as_posix() for p in paths)


def build() -> dict[str, Any]:
    """The file's content: the real server's answers in an empty project
    with the default settings, for every protocol version the SDK
    negotiates, and the identity they were made under."""
    import tempfile

    from signalint.server import front, prerecord

    files = _answer_modules()
    cleared = (*SETTINGS_VARIABLES, "SIGNALINT_PROJECT_ROOT")
    keep = {k: os.environ.get(k) for k in ("XDG_CACHE_HOME", *cleared)}
    with tempfile.TemporaryDirectory(prefix="signalint-handshake-") as scratch:
        root = Path(scratch) / "project"
        root.mkdir()
        try:
            os.environ["XDG_CACHE_HOME"] = str(Path(scratch) / "cache")
            for name in cleared:
                os.environ.pop(name, None)
            failed = prerecord.prerecord(root)
            answers = Recorded.load(front.record_key(root), front.cache_dir())
        finally:
            for name, value in keep.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
    versions = prerecord.handshake_versions()
    if failed is not None or answers.tools is None or set(answers.initialize) != set(versions):
        raise RuntimeError(f"the server did not answer every handshake: {failed}")
    return {
        "identity": _identity(files),
        "initialize": {v: answers.initialize[v] for v in versions},
        "tools": answers.tools,
    }


def main() -> None:
    """`python -m signalint.server.packaged`: rewrite `handshake.json`."""
    from signalint.files import write_atomic

    text = json.dumps(build(), indent=1, sort_keys=True) + "\n"
    write_atomic(FILE, text.encode("utf-8"), mode=0o644)
    print(f"wrote {FILE}")


if __name__ == "__main__":
    main()
