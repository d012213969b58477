"""`signalint init`: write signalint.config.json from the engine configs found.

Detection: TypeScript iff a root `tsconfig.json`; Biome iff `biome.json(c)`;
ESLint iff a root flat config; Oxlint iff a root Oxlint config
(`.oxlintrc`, `.oxlintrc.*`, `oxlint.config.ts`) exists or neither ESLint
nor Biome is configured (D21: Oxlint's default rules are not added beside
the linter the project chose; `init` says how to turn it on). Prettier is
reported, never run. An existing configuration (the JSON
file, or `[tool.signalint]` in pyproject.toml, which a new JSON file would
silently shadow) is never overwritten. `.signalint/` is added to .gitignore
either way.

stdout carries the human summary; warnings and errors go to stderr.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import click

from signalint.config import (
    CONFIG_FILE,
    DEFAULT_IGNORE,
    DEFAULT_TIMEOUTS_MS,
    ENGINE_NAMES,
    ESLINT_FLAT_CONFIGS,
    ConfigError,
    config_source,
    load_config,
)
from signalint.engines.registry import ENGINES
from signalint.engines.resolve import install_hint, resolve
from signalint.project import RootError, discover_root, has_js_ts_markers

# Lines that already keep our state directory out of git at the root.
GITIGNORE_LINES: Final = frozenset({".signalint", ".signalint/", "/.signalint", "/.signalint/"})


@dataclass(frozen=True, slots=True)
class Detected:
    """Root config files found per tool (the file name, or None)."""

    typescript: str | None
    oxlint: str | None
    biome: str | None
    eslint: str | None
    prettier: str | None

    def engines(self) -> dict[str, bool]:
        """Which engines a new config enables (module docstring)."""
        return {
            "oxlint": self.oxlint is not None or (self.biome is None and self.eslint is None),
            "tsc": self.typescript is not None,
            "biome": self.biome is not None,
            "eslint": self.eslint is not None,
        }


def detect(root: Path) -> Detected:
    """Look only at the root directory: nested configs do not decide engines."""
    try:
        names = sorted(e.name for e in os.scandir(root) if e.is_file())
    except OSError:
        names = []

    def first(*candidates: str, prefix: str | None = None) -> str | None:
        for name in names:
            if name in candidates or (prefix is not None and name.startswith(prefix)):
                return name
        return None

    prettier = first(".prettierrc", prefix=".prettierrc.") or first(prefix="prettier.config.")
    if prettier is None and "package.json" in names and _package_has_prettier(root):
        prettier = 'package.json ("prettier" key)'
    return Detected(
        typescript=first("tsconfig.json"),
        oxlint=first(".oxlintrc", "oxlint.config.ts", prefix=".oxlintrc."),
        biome=first("biome.json", "biome.jsonc"),
        eslint=next((n for n in ESLINT_FLAT_CONFIGS if n in names), None),
        prettier=prettier,
    )


def _package_has_prettier(root: Path) -> bool:
    try:
        data = json.loads((root / "package.json").read_text(encoding="utf-8-sig"))
    except (OSError, ValueError):
        return False  # a broken package.json is the package manager's problem, not ours
    return isinstance(data, dict) and "prettier" in data


def proposed_config(found: Detected) -> dict[str, object]:
    """The file `init` writes: detected engines plus the defaults, spelled out."""
    return {
        "engines": found.engines(),
        "ignore": list(DEFAULT_IGNORE),
        "timeoutsMs": dict(DEFAULT_TIMEOUTS_MS),
        "mcpPayload": "both",
    }


def ensure_gitignored(root: Path) -> bool:
    """Append `.signalint/` to .gitignore unless a line already covers it.

    Returns True when the file was changed. Trailing whitespace is ignored
    when comparing (git strips it too); the file's newline style is kept.
    """
    path = root / ".gitignore"
    try:
        text = path.read_bytes().decode("utf-8", errors="replace")
    except FileNotFoundError:
        text = ""
    if any(line.rstrip() in GITIGNORE_LINES for line in text.splitlines()):
        return False
    newline = "\r\n" if "\r\n" in text else "\n"
    lead = newline if text and not text.endswith("\n") else ""
    # Append mode: the existing bytes are never rewritten.
    with path.open("ab") as fh:
        fh.write(f"{lead}.signalint/{newline}".encode())
    return True


def _write_config(root: Path, found: Detected) -> bool:
    """Create the config file; False when one already exists (never replaced)."""
    text = json.dumps(proposed_config(found), indent=2) + "\n"
    try:
        with (root / CONFIG_FILE).open("x", encoding="utf-8") as fh:  # "x": no overwrite race
            fh.write(text)
    except FileExistsError:
        return False
    return True


def _explain_oxlint_off(found: Detected) -> None:
    chosen = " and ".join(
        f"{label} ({name})"
        for label, name in (("ESLint", found.eslint), ("Biome", found.biome))
        if name
    )
    click.echo(
        f"Oxlint is off: the project lints with {chosen} and has no Oxlint config, so "
        "Oxlint's default rules were not added. To run Oxlint too, set "
        f'"oxlint": true under "engines" in {CONFIG_FILE} (add a .oxlintrc.json to '
        "choose its rules)."
    )


def _warn(message: str) -> None:
    click.echo(f"warning: {message}", err=True)


def _warn_unresolved(root: Path) -> None:
    try:
        config = load_config(root)
    except ConfigError as exc:
        _warn(f"the configuration is not valid: {exc}")
        return
    for name in config.enabled_engines():
        engine = ENGINES.get(name)
        if engine is None:
            continue
        resolved = resolve(engine, root)
        if resolved.path is None or resolved.source == "missing":
            _warn(
                f"{name} is enabled but no executable was found; "
                f"install it with `{install_hint(name)}` (or add it to the project)"
            )


@click.command("init")
@click.pass_context
def init(ctx: click.Context) -> None:
    """Detect engine configs and write signalint.config.json (never overwritten).

    Works on the current directory, or on SIGNALINT_PROJECT_ROOT when set.
    Also adds `.signalint/` to .gitignore.
    """
    try:
        root = discover_root()
        existing = config_source(root)
    except (RootError, ConfigError) as exc:
        click.echo(f"error: {exc}", err=True)
        ctx.exit(2)
    if not has_js_ts_markers(root):
        _warn(
            f"{root} has no package.json, tsconfig.json, jsconfig.json or top-level "
            "JS/TS file; is this the project root?"
        )
    found = detect(root)
    click.echo(f"Project root: {root}")
    click.echo("Detected:")
    for label, name in (
        ("TypeScript", found.typescript),
        ("Oxlint", found.oxlint),
        ("Biome", found.biome),
        ("ESLint", found.eslint),
        ("Prettier", found.prettier),
    ):
        note = " (reported only: Signalint does not run Prettier)" if label == "Prettier" else ""
        click.echo(f"  {label:<11} {name + note if name else 'not found'}")

    if existing is not None:
        click.echo(f"Kept the existing configuration in {existing.name}; it was not changed.")
    else:
        try:
            written = _write_config(root, found)
        except OSError as exc:
            click.echo(f"error: cannot write {root / CONFIG_FILE}: {exc.strerror}", err=True)
            ctx.exit(1)
        if written:
            engines = found.engines()
            summary = ", ".join(f"{n} {'on' if engines[n] else 'off'}" for n in ENGINE_NAMES)
            click.echo(f"Wrote {CONFIG_FILE}: {summary}. Review it before your first check.")
            if not engines["oxlint"]:
                _explain_oxlint_off(found)
        else:
            click.echo(f"Kept the existing {CONFIG_FILE}; it was not changed.")

    try:
        added = ensure_gitignored(root)
    except OSError as exc:
        _warn(f"cannot update {root / '.gitignore'} ({exc.strerror}); add .signalint/ yourself")
    else:
        click.echo(
            "Added .signalint/ to .gitignore." if added else ".gitignore already has .signalint."
        )
    _warn_unresolved(root)
