"""`signalint init` connecting MCP clients: the entries, the edits, the real hosts.

Quick tests drive `init` in-process with a throwaway HOME (the server's
handshake recorded there already, so no server starts). Real tests run
the installed console script, then prove each written file the way its host
would: parse it (JSONC or TOML), start exactly the command it names with its
args, env and cwd, complete MCP `initialize`, `ping` (protocol) and the
`ping` tool, and compare `projectRoot`. Claude Code, Codex CLI and Gemini
CLI themselves (pinned, installed by scripts/setup) read their files too.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from signalint.cli.init import init
from signalint.cli.main import cli
from signalint.hosts import settings_file
from signalint.hosts.clients import CLIENTS, SERVER_NAME, launch_of
from signalint.hosts.settings_file import BACKUP_SUFFIX

SIGNALINT = Path(sys.executable).parent / "signalint"
HOSTS_BIN = Path(
    os.environ.get(
        "SIGNALINT_TEST_HOSTS_BIN",
        str(Path.home() / ".cache" / "signalint" / "hosts" / "node_modules" / ".bin"),
    )
)
PAIRS = [(name, scope) for name, c in CLIENTS.items() for scope in c.scopes()]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "package.json").write_text('{"name": "p", "private": true}\n')
    (root / "signalint.config.json").write_text('{"engines": {"oxlint": false}}\n')
    return root.resolve()


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def handshake_recorded(project: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The server's handshake answers already recorded for `project` under
    `home`, so writing an entry starts no server (`server.prerecord` finds
    every version recorded; starting the real server is the real tier's,
    tests/server/test_prerecord.py). Settings files the test changes later
    make another record key, and the server that starts then fails the test
    (conftest's tier guard)."""
    from signalint.server import front
    from signalint.server.prerecord import handshake_versions

    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    with monkeypatch.context() as inside:
        inside.setenv("HOME", str(home))  # as `run` gives it to init
        key, directory = front.record_key(project), front.cache_dir()
    assert directory.is_relative_to(home), directory
    answers = {version: {"protocolVersion": version} for version in handshake_versions()}
    front.Recorded(key, answers, {"tools": []}).save(directory)


def run(project: Path, home: Path, *args: str) -> Result:
    return CliRunner().invoke(
        init, list(args), env={"SIGNALINT_PROJECT_ROOT": str(project), "HOME": str(home)}
    )


def entry_in(path: Path, name: str) -> Any:
    client = CLIENTS[name]
    return settings_file.get(settings_file.load(path, client.fmt), (*client.container, SERVER_NAME))


@pytest.mark.usefixtures("handshake_recorded")
def test_project_entries_pin_the_root_and_user_entries_pin_none(project: Path, home: Path) -> None:
    for name, scope in PAIRS:
        result = run(project, home, "--client", name, "--scope", scope, "--yes")
        assert result.exit_code == 0, result.output
        assert "Recorded the server's handshake" in result.output  # found recorded
        target = CLIENTS[name].target(scope, project, home)
        assert target is not None
        launch = launch_of(CLIENTS[name], entry_in(target, name))
        assert launch is not None, (name, scope)
        assert Path(launch.argv[0]).is_absolute() and Path(launch.argv[0]).exists()
        pinned = launch.cwd or launch.env.get("SIGNALINT_PROJECT_ROOT")
        assert pinned == (str(project) if scope == "project" else None), (name, scope)


@pytest.mark.usefixtures("handshake_recorded")
def test_an_edit_keeps_comments_and_a_second_run_is_byte_identical(
    project: Path, home: Path
) -> None:
    settings = home / ".config" / "zed" / "settings.json"
    settings.parent.mkdir(parents=True)
    original = (
        "// Zed settings\n{\n"
        '  "theme": "One Dark", // mine\n'
        '  "context_servers": {\n    "other": {"command": "x", "args": []},\n  },\n}\n'
    )
    settings.write_text(original)
    assert run(project, home, "--client", "zed", "--yes").exit_code == 0
    first = settings.read_bytes()
    text = first.decode()
    assert text.startswith('// Zed settings\n{\n  "theme": "One Dark", // mine\n')
    assert '"other": {"command": "x", "args": []},\n' in text
    assert (settings.parent / f"settings.json{BACKUP_SUFFIX}").read_text() == original
    again = run(project, home, "--client", "zed", "--yes")
    assert "nothing changed" in again.output
    assert settings.read_bytes() == first


@pytest.mark.usefixtures("handshake_recorded")
def test_codex_toml_keeps_its_comments_and_other_tables(project: Path, home: Path) -> None:
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text('# mine\nmodel = "o3"\n\n[mcp_servers.other]\ncommand = "x" # keep\n')
    assert run(project, home, "--client", "codex", "--scope", "user", "--yes").exit_code == 0
    text = config.read_text()
    assert text.startswith('# mine\nmodel = "o3"\n\n[mcp_servers.other]\ncommand = "x" # keep\n')
    assert "[mcp_servers.signalint]" in text


@pytest.mark.usefixtures("handshake_recorded")
def test_an_entry_with_the_users_own_env_is_kept_unless_forced(project: Path, home: Path) -> None:
    mcp = project / ".mcp.json"
    own = {"command": "/opt/signalint-mcp", "args": ["--x"], "env": {"MINE": "1"}}
    mcp.write_text(json.dumps({"mcpServers": {SERVER_NAME: own}}, indent=2))
    before = mcp.read_bytes()
    kept = run(project, home, "--client", "claude", "--yes")
    assert kept.exit_code == 0
    assert "was kept" in kept.output and "--force" in kept.output
    assert mcp.read_bytes() == before
    forced = run(project, home, "--client", "claude", "--yes", "--force")
    assert forced.exit_code == 0
    assert '-    "MINE": "1"' in forced.output  # the difference is shown first
    assert entry_in(mcp, "claude")["env"] == {"SIGNALINT_PROJECT_ROOT": str(project)}


def test_a_malformed_client_file_is_refused_with_line_and_column_and_kept(
    project: Path, home: Path
) -> None:
    cursor = project / ".cursor" / "mcp.json"
    cursor.parent.mkdir()
    cursor.write_text('{\n  "mcpServers": {\n    "a": 1\n    "b": 2\n  }\n}\n')
    before = cursor.read_bytes()
    result = CliRunner().invoke(
        cli,
        ["init", "--client", "cursor", "--yes"],
        env={"SIGNALINT_PROJECT_ROOT": str(project), "HOME": str(home)},
    )
    assert result.exit_code != 0
    assert "line 4 column 5" in str(result.exception or result.output)
    assert cursor.read_bytes() == before


def test_without_a_terminal_the_snippets_are_printed_and_nothing_is_written(
    project: Path, home: Path
) -> None:
    (project / ".cursor").mkdir()
    (home / ".codex").mkdir()
    result = run(project, home)
    assert result.exit_code == 0
    out = result.output
    assert out.index("# Cursor (project)") < out.index("# Codex CLI (user)")
    assert not (project / ".cursor" / "mcp.json").exists()
    assert not (home / ".codex" / "config.toml").exists()
    named = run(project, home, "--client", "vscode")
    assert "nothing was written" in named.output
    assert not (project / ".vscode" / "mcp.json").exists()


def test_print_shows_the_snippet_alone_and_writes_nothing(tmp_path: Path, home: Path) -> None:
    root = tmp_path / "bare"
    root.mkdir()
    (root / "package.json").write_text("{}")
    result = CliRunner().invoke(
        init,
        ["--print", "--client", "gemini"],
        env={"SIGNALINT_PROJECT_ROOT": str(root), "HOME": str(home)},
    )
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["mcpServers"][SERVER_NAME]["cwd"] == str(root.resolve())
    assert sorted(p.name for p in root.iterdir()) == ["package.json"]


def test_a_scope_the_client_lacks_is_a_usage_error(project: Path, home: Path) -> None:
    result = run(project, home, "--client", "windsurf", "--scope", "project", "--yes")
    assert result.exit_code == 2
    assert "--scope user" in result.output


# --- real hosts ------------------------------------------------------------


def write_with_cli(project: Path, home: Path, name: str, scope: str) -> Path:
    env = {**os.environ, "HOME": str(home), "SIGNALINT_PROJECT_ROOT": str(project)}
    done = subprocess.run(
        [str(SIGNALINT), "init", "--client", name, "--scope", scope, "--yes"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    target = CLIENTS[name].target("project" if scope == "project" else "user", project, home)
    assert target is not None and target.exists()
    return target


async def ping_root(argv: list[str], env: dict[str, str], cwd: Path) -> str:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=argv[0], args=argv[1:], env=env, cwd=cwd)
    with (cwd.parent / "server.stderr").open("a") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            await session.send_ping()
            result = await session.call_tool("ping", {})
            assert result.structured_content is not None
            root = result.structured_content["projectRoot"]
            assert isinstance(root, str)
            return root


@pytest.mark.real
@pytest.mark.anyio
@pytest.mark.parametrize(("name", "scope"), PAIRS)
async def test_the_written_entry_starts_a_server_that_answers_ping_with_the_root(
    project: Path, home: Path, tmp_path: Path, name: str, scope: str
) -> None:
    target = write_with_cli(project, home, name, scope)
    launch = launch_of(CLIENTS[name], entry_in(target, name))
    assert launch is not None
    # A host starts a project entry wherever it likes (the entry pins the
    # root); a user entry in the workspace it opened.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    cwd = Path(launch.cwd) if launch.cwd else (elsewhere if scope == "project" else project)
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), **launch.env}
    if "SIGNALINT_ENGINES_DIR" in os.environ:
        env["SIGNALINT_ENGINES_DIR"] = os.environ["SIGNALINT_ENGINES_DIR"]
    assert await ping_root(launch.argv, env, cwd) == str(project)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def host(name: str) -> Path:
    path = HOSTS_BIN / name
    if not path.exists():
        pytest.fail(f"{path} is missing: run scripts/setup (it installs the pinned host CLIs)")
    return path


def run_host(argv: list[str], home: Path, cwd: Path) -> str:
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "NO_COLOR": "1"}
    done = subprocess.run(
        argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=180, check=False
    )
    return done.stdout + done.stderr


@pytest.mark.real
def test_claude_code_health_checks_the_user_entry_as_connected(project: Path, home: Path) -> None:
    write_with_cli(project, home, "claude", "user")
    out = run_host([str(host("claude")), "mcp", "list"], home, project)
    line = next((ln for ln in out.splitlines() if ln.startswith(f"{SERVER_NAME}:")), out)
    assert "✔ Connected" in line, out


@pytest.mark.real
def test_codex_parses_the_written_config_toml(project: Path, home: Path) -> None:
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text('# mine\nmodel = "o3"\n')
    write_with_cli(project, home, "codex", "user")
    out = run_host([str(host("codex")), "mcp", "get", SERVER_NAME], home, project)
    assert f"command: {Path(sys.executable).parent / 'signalint-mcp'}" in out, out
    assert "enabled: true" in out


@pytest.mark.real
def test_gemini_cli_connects_to_the_project_entry(project: Path, home: Path) -> None:
    write_with_cli(project, home, "gemini", "project")
    trusted = home / ".gemini" / "trustedFolders.json"
    trusted.parent.mkdir(exist_ok=True)
    trusted.write_text(json.dumps({str(project): "TRUST_FOLDER"}))
    out = run_host([str(host("gemini")), "mcp", "list"], home, project)
    line = next((ln for ln in out.splitlines() if f"{SERVER_NAME}:" in ln), out)
    assert "Connected" in line and "Disconnected" not in line, out


def test_ephemeral_uvx_and_pipx_installs_are_launched_the_same_way(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from signalint.hosts.clients import launcher

    monkeypatch.setattr(sys, "prefix", "/home/u/.cache/uv/archive-v0/abc")
    assert launcher() == ("uvx", ["--from", "signalint", "signalint-mcp"])
    monkeypatch.setattr(sys, "prefix", "/home/u/.local/pipx/.cache/0123/")
    assert launcher() == ("pipx", ["run", "--spec", "signalint", "signalint-mcp"])
    monkeypatch.setattr(sys, "prefix", "/home/u/project/.venv")
    assert launcher("/home/u/project/.venv/bin/signalint-mcp") == (
        "/home/u/project/.venv/bin/signalint-mcp",
        [],
    )


@pytest.mark.real
def test_on_a_terminal_init_offers_the_detected_clients_and_asks_before_writing(
    project: Path, home: Path
) -> None:
    import pty
    import select

    (project / ".cursor").mkdir()
    (home / ".codex").mkdir()
    env = {**os.environ, "HOME": str(home), "SIGNALINT_PROJECT_ROOT": str(project)}
    pid, fd = pty.fork()
    if pid == 0:  # the child: init on a terminal
        os.execve(str(SIGNALINT), [str(SIGNALINT), "init"], env)
    seen = b""
    answers = [(b"Connect which one?", b"1\n"), (b"Write the signalint entry", b"y\n")]
    while True:
        ready, _, _ = select.select([fd], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
        if answers and answers[0][0] in seen:
            os.write(fd, answers.pop(0)[1])
    _, status = os.waitpid(pid, 0)
    text = seen.decode(errors="replace")
    assert os.waitstatus_to_exitcode(status) == 0, text
    assert text.index("1. Cursor (project)") < text.index("2. Codex CLI (user)")
    assert not answers, text
    assert entry_in(project / ".cursor" / "mcp.json", "cursor")["env"] == {
        "SIGNALINT_PROJECT_ROOT": str(project)
    }
    assert not (home / ".codex" / "config.toml").exists()
