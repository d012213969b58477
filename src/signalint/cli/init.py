"""`signalint init`: write the settings from the engine configs found.

Detection asks every registered engine which root config file means the
project uses it (`Engine.detect`: `tsconfig.json` for tsc, `biome.json(c)`
for Biome, a flat config for ESLint, `[tool.ruff]` or `ruff.toml` for
Ruff, ...); those engines are enabled. A `fallback` linter (Oxlint for
JS/TS, Ruff for Python) is also enabled for a language the project has
markers for when no other linter of that language is configured (D21: a
linter's default rules are not added beside the linter the project chose;
`init` says how to turn it on). Prettier is reported, never run. An
existing configuration (in any home of `signalint.settings.homes.HOMES`) is
never overwritten. The settings go to the first home the project's own
linters accept (`signalint.settings.init_home`: `signalint.config.json`, else
`.signalint.json`, else a `"signalint"` key in package.json), or where
`--config-file` says. `.signalint/` is added to .gitignore either way.

Then the MCP client step (`signalint.hosts`): with `--client NAME` that
client's entry is planned for `--scope` (project by default when the client
has one); without it the detected candidates are offered, project targets
first. On a terminal `init` asks before writing; without one it prints the
snippets and writes nothing unless `--yes`. `--print` prints one client's
snippet and does nothing else. An existing `signalint` entry that differs
from ours is kept unless `--force`, which shows the difference first.

stdout carries the human summary; warnings and errors go to stderr.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import click

from signalint.engines.registry import ENGINES
from signalint.engines.resolve import install_hint, resolve
from signalint.project.markers import MARKERS_HINT, project_languages
from signalint.project.roots import discover_root
from signalint.settings import init_home as settings_home
from signalint.settings.config import (
    DEFAULT_IGNORE,
    DEFAULT_TIMEOUTS_MS,
    PACKAGE_FILE,
    PACKAGE_KEY,
    ConfigError,
    config_source,
    describe_source,
    load_config,
)

# Lines that already keep our state directory out of git at the root.
GITIGNORE_LINES: Final = frozenset({".signalint", ".signalint/", "/.signalint", "/.signalint/"})


@dataclass(frozen=True, slots=True)
class Detected:
    """What the root says: each engine's config file (or None), the
    languages with project markers, and a Prettier config (reported only)."""

    configs: Mapping[str, str | None]
    languages: tuple[str, ...]
    prettier: str | None = None

    def engines(self) -> dict[str, bool]:
        """Which engines a new config enables (module docstring)."""
        return {name: self._enabled(name) for name in ENGINES}

    def _enabled(self, name: str) -> bool:
        spec = ENGINES[name].spec
        if self.replaced(name):
            return False
        if self.configs.get(name) is not None:
            return True
        return spec.fallback and spec.language in self.languages and not self.other_linters(name)

    def replaced(self, name: str) -> bool:
        """Whether a detected engine replaces `name` (tsc in a Vue, Svelte or
        Astro project: vue-tsc, svelte-check or astro check its program)."""
        return any(
            name in engine.spec.replaces and self.configs.get(other) is not None
            for other, engine in ENGINES.items()
        )

    def other_linters(self, name: str) -> list[str]:
        """Configured linters of `name`'s language other than `name`."""
        spec = ENGINES[name].spec
        return [
            other
            for other, engine in ENGINES.items()
            if other != name
            and engine.spec.kind == "linter"
            and engine.spec.language == spec.language
            and self.configs.get(other) is not None
        ]


def detect(root: Path) -> Detected:
    """Look only at the root directory: nested configs do not decide engines."""
    try:
        names = sorted(e.name for e in os.scandir(root) if e.is_file())
    except OSError:
        names = []
    prettier = next(
        (
            n
            for n in names
            if n == ".prettierrc" or n.startswith((".prettierrc.", "prettier.config."))
        ),
        None,
    )
    if prettier is None and "package.json" in names and _package_has_prettier(root):
        prettier = 'package.json ("prettier" key)'
    return Detected(
        configs={name: engine.detect(root) for name, engine in ENGINES.items()},
        languages=project_languages(root),
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


def _write_config(root: Path, found: Detected, only: str | None) -> str | None:
    """Write the settings to the first home that adds no lint problem.

    Returns the home written, or None when none was (a home appeared
    meanwhile, or every home would add a problem: both said on stderr).
    `only` (--config-file) writes that home whatever the linters say,
    warning about the problems it adds. Raises OSError when writing fails.
    """
    value = proposed_config(found)
    options = settings_home.candidates(root, value, only)
    if not options:
        click.echo(
            f"error: {PACKAGE_FILE} cannot take a {json.dumps(PACKAGE_KEY)} key: it is missing, "
            "not a JSON object, or not readable as UTF-8",
            err=True,
        )
        return None
    refused: list[settings_home.Verdict] = []
    for home, text, old in options:
        verdict = settings_home.judge(root, home, text, old)
        for linter, error in verdict.unknown.items():
            _warn(f"could not ask {linter} whether it lints {home} ({error})")
        if verdict.problems and only is None:
            refused.append(verdict)
            continue
        if not settings_home.write(root, verdict, old):
            click.echo(f"{home} appeared or changed meanwhile; it was not changed.", err=True)
            return None
        for earlier in refused:
            click.echo(
                f"Not written to {earlier.home}: the project's linters would report it "
                f"({'; '.join(earlier.problems)})."
            )
        for problem in verdict.problems:
            _warn(f"the project's linters report {home}: {problem}")
        return home
    for earlier in refused:
        click.echo(
            f"error: {earlier.home} would add lint problems: {'; '.join(earlier.problems)}",
            err=True,
        )
    click.echo(
        "error: no settings file written; choose one with --config-file "
        f"({', '.join(settings_home.WRITABLE)})",
        err=True,
    )
    return None


def _explain_fallback_off(found: Detected, name: str, home: str) -> None:
    chosen = " and ".join(
        f"{other} ({found.configs[other]})" for other in found.other_linters(name)
    )
    click.echo(
        f"{name} is off: the project lints with {chosen} and has no {name} config, so "
        f"{name}'s default rules were not added. To run it too, set "
        f'"{name}": true under "engines" in {home}.'
    )


def _warn(message: str) -> None:
    click.echo(f"warning: {message}", err=True)


def _warn_unresolved(root: Path) -> None:
    try:
        config = load_config(root)
    except ConfigError as exc:
        _warn(f"the configuration is not valid: {exc}")
        return
    for name in config.enabled_engines:
        resolved = resolve(ENGINES[name], root)
        if resolved.path is None or resolved.source == "missing":
            _warn(
                f"{name} is enabled but no executable was found; "
                f"install it with `{install_hint(name)}` (or add it to the project)"
            )


def _client_names() -> list[str]:
    from signalint.hosts.clients import CLIENTS

    return sorted(CLIENTS)


@click.command("init")
@click.option(
    "--client",
    type=click.Choice(_client_names()),
    help="Connect this MCP client (without it: offer the detected ones).",
)
@click.option(
    "--scope",
    type=click.Choice(["project", "user"]),
    help="Write the client's project file (pins this root) or its user file (pins none). "
    "Default: project when the client has one.",
)
@click.option("--yes", "-y", is_flag=True, help="With --client: write its entry without asking.")
@click.option(
    "--print",
    "print_only",
    is_flag=True,
    help="Print the --client entry as a snippet and do nothing else.",
)
@click.option(
    "--force",
    is_flag=True,
    help="Replace an existing signalint entry that differs (its difference is shown first).",
)
@click.option(
    "--config-file",
    "home",
    type=click.Choice(list(settings_home.WRITABLE)),
    help="Write the settings here, whatever the project's linters say "
    "(default: the first of these they accept).",
)
@click.option(
    "--editor",
    type=click.Choice(["claude", "neovim", "helix", "zed", "vscode"]),
    help="Set up the language server (`signalint lsp`) for this editor or host "
    "(claude: a plugin with the MCP server, language server and hooks).",
)
@click.pass_context
def init(
    ctx: click.Context,
    client: str | None,
    scope: str | None,
    yes: bool,
    print_only: bool,
    force: bool,
    home: str | None,
    editor: str | None,
) -> int:
    """Detect engine configs, write the settings, and connect an MCP client.

    Works on the current directory, or on SIGNALINT_PROJECT_ROOT when set.
    The settings go to signalint.config.json unless the project's own
    linters would report that file (an ESLint block for `*.config.*`): then
    to .signalint.json, else a "signalint" key in package.json; the one used
    is named. Existing settings are never overwritten; `.signalint/` is added
    to .gitignore. Then a client entry that launches `signalint-mcp` is offered
    (Claude Code, Cursor, Codex CLI, Antigravity, VS Code, Windsurf, Zed,
    Gemini CLI): asked for on a terminal, printed without one, written with
    --yes. Edits keep the rest of the client file (comments included) and a
    backup of it. With the entry in place, the server's handshake answers are
    recorded (about two seconds), so the client's first start answers at
    once. Exit 1 when a client file cannot be read or written.
    """
    from signalint.cli.connect import connect_client, print_snippet

    root = discover_root()
    if print_only:
        if client is None and editor is None:
            raise click.UsageError("--print needs --client NAME or --editor NAME")
        if editor is not None:
            _editor_step(root, editor, print_only=True)
        if client is not None:
            print_snippet(root, client, scope)
        return 0
    # A malformed pyproject.toml raises here: whether it already holds our
    # table is unknown, so no file is written (exit 2 by the entry point).
    existing = config_source(root)
    found = detect(root)
    if not found.languages:
        _warn(
            f"{root} has no JS/TS or Python project markers ({MARKERS_HINT}); "
            "is this the project root?"
        )
    click.echo(f"Project root: {root}")
    click.echo("Detected:")
    for name, file in found.configs.items():
        click.echo(f"  {name:<11} {file or 'not found'}")
    if found.prettier:
        click.echo(
            f"  {'Prettier':<11} {found.prettier} (reported only: Signalint does not run it)"
        )

    if existing is not None:
        click.echo(
            f"Kept the existing configuration in {describe_source(existing)}; it was not changed."
        )
    else:
        try:
            written = _write_config(root, found, home)
        except OSError as exc:
            click.echo(f"error: cannot write the settings in {root}: {exc.strerror}", err=True)
            ctx.exit(1)
        if written is None:
            ctx.exit(1)
        where = describe_source(root / written)
        engines = found.engines()
        summary = ", ".join(f"{n} {'on' if on else 'off'}" for n, on in engines.items())
        click.echo(
            f"Wrote the settings to {where}: {summary}. Review them before your first check."
        )
        for name, on in engines.items():
            if not on and ENGINES[name].spec.fallback and found.other_linters(name):
                _explain_fallback_off(found, name, where)

    try:
        added = ensure_gitignored(root)
    except OSError as exc:
        _warn(f"cannot update {root / '.gitignore'} ({exc.strerror}); add .signalint/ yourself")
    else:
        click.echo(
            "Added .signalint/ to .gitignore." if added else ".gitignore already has .signalint."
        )
    _warn_unresolved(root)
    if editor is not None:
        _editor_step(root, editor, print_only=False)
        if client is None:
            return 0
    return connect_client(root, client, scope, yes=yes, force=force)


def _editor_step(root: Path, name: str, *, print_only: bool) -> None:
    """Write (or print) what `name` needs to start the language server."""
    from signalint.hosts import claude_plugin, editors

    if name == "claude":
        if print_only:
            click.echo(json.dumps(claude_plugin.plugin_manifest(root), indent=2))
            return
        where = claude_plugin.write(root)
        click.echo(f"Wrote Claude Code's plugin (MCP server, language server, hooks) in {where}.")
        click.echo(f"Install it: claude plugin marketplace add {where}")
        click.echo(f"            claude plugin install "
                   f"{claude_plugin.PLUGIN}@{claude_plugin.MARKETPLACE}")  # fmt: skip
        return
    target = editors.EDITORS[name]
    if not print_only:
        written = editors.write_new(root, name)
        if written is not None:
            click.echo(f"Wrote {target.label}'s language-server settings to {written}.")
            return
        why = "it exists" if target.fmt != "lua" else "your choice of file"
        click.echo(f"{target.label}: add this to {target.file} (not written: {why}):")
    click.echo(editors.snippet(name), nl=False)
