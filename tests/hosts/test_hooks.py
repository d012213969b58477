"""Verify-after-edit hooks: host events, the D10 policy, hook files, real runs.

Events are the recorded payloads of tests/fixtures/hooks (sources in its
README). Real tests run `signalint hooks run` as each host would (payload on
stdin, JSON decision on stdout) against a small Python project checked by
the pinned Ruff.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from signalint.cli.main import cli
from signalint.hosts import hook_config, jsonc
from signalint.hosts.hook_events import RUNTIMES, parse_event
from signalint.hosts.hook_policy import Decision, StopCounter, render, stop
from signalint.hosts.hook_run import edited_targets
from signalint.settings.config import load_config
from tests.factories import issue, snapshot

FIXTURES = Path(__file__).parents[1] / "fixtures" / "hooks"
SIGNALINT = Path(sys.executable).parent / "signalint"
EDITS = {
    "claude": "claude-post-tool-use-write.json",
    "codex": "codex-post-tool-use-apply-patch.json",
    "cursor": "cursor-after-file-edit.json",
    "vscode": "vscode-post-tool-use.json",
    "gemini": "gemini-after-tool.json",
}
STOPS = {
    "claude": "claude-stop.json",
    "codex": "codex-stop.json",
    "cursor": "cursor-stop.json",
    "vscode": "vscode-stop.json",
    "gemini": "gemini-after-agent.json",
}


def payload(name: str, root: Path, **changes: Any) -> dict[str, Any]:
    text = (FIXTURES / name).read_text().replace("${ROOT}", str(root))
    data = json.loads(text)
    assert isinstance(data, dict)
    data.update(changes)
    return data


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "pyproject.toml").write_text('[project]\nname = "p"\nversion = "0"\n')
    engines = {name: name == "ruff" for name in ("oxlint", "tsc", "biome", "eslint")}
    engines.update(ruff=True, mypy=False, pyright=False)
    (root / "signalint.config.json").write_text(
        json.dumps({"engines": engines, "ignore": ["generated/**"]})
    )
    (root / "app.py").write_text("import os\n")
    (root / "README.md").write_text("# p\n")
    return root.resolve()


# --- events ------------------------------------------------------------------


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_each_hosts_post_edit_event_names_the_edited_file(project: Path, runtime: str) -> None:
    event = parse_event(runtime, payload(EDITS[runtime], project))
    assert event.kind == "edit"
    assert [Path(project, f).resolve() for f in event.files] == [project / "app.py"]


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_each_hosts_stop_event_is_a_fresh_stop(project: Path, runtime: str) -> None:
    event = parse_event(runtime, payload(STOPS[runtime], project))
    assert (event.kind, event.stop_active) == ("stop", False)


def test_stop_hook_active_and_cursors_loop_count_mark_a_continued_stop(project: Path) -> None:
    claude = parse_event("claude", payload("claude-stop.json", project, stop_hook_active=True))
    cursor = parse_event("cursor", payload("cursor-stop.json", project, loop_count=1))
    assert claude.stop_active and cursor.stop_active


def test_claude_notebook_edits_and_codex_patches_name_every_file(project: Path) -> None:
    notebook = parse_event("claude", payload("claude-post-tool-use-notebook.json", project))
    assert notebook.files == (f"{project}/analysis.ipynb",)
    patch = (
        "*** Begin Patch\n*** Add File: a.py\n+x\n*** Update File: b.py\n*** Move to: c.py\n"
        "*** Delete File: d.py\n*** End Patch"
    )
    codex = parse_event(
        "codex",
        payload("codex-post-tool-use-apply-patch.json", project, tool_input={"command": patch}),
    )
    assert codex.files == ("a.py", "b.py", "c.py", "d.py")


def test_other_events_get_no_decision(project: Path) -> None:
    event = parse_event("claude", {"hook_event_name": "PreToolUse", "tool_name": "Bash"})
    assert event.kind == "other"
    assert render(event, Decision(block=True, reason="x")) == {}


# --- untrusted paths -----------------------------------------------------------


def test_edited_paths_outside_ignored_or_unchecked_are_skipped(
    project: Path, tmp_path: Path
) -> None:
    (project / "generated").mkdir()
    (project / "generated" / "g.py").write_text("x = 1\n")
    outside = tmp_path / "outside.py"
    outside.write_text("x = 1\n")
    (project / "link.py").symlink_to(outside)
    files = (
        "app.py",
        str(outside),
        "../outside.py",
        "link.py",
        "generated/g.py",
        "README.md",
        "--help",
        "bad\0name.py",
    )
    event = parse_event("claude", payload("claude-stop.json", project))
    from dataclasses import replace

    event = replace(event, kind="edit", files=files)
    targets, skipped = edited_targets(project, load_config(project), event, project)
    assert targets == ["app.py"]
    joined = "\n".join(skipped)
    assert joined.count("outside the project") == 3  # absolute, ../ and the symlink out
    assert "generated/**" in joined
    assert "NUL" in joined
    assert "README.md" not in joined  # not ours to check: silently left out


# --- policy --------------------------------------------------------------------


def stop_event(runtime: str = "claude", active: bool = False) -> Any:
    name = "claude-stop.json" if runtime == "claude" else STOPS[runtime]
    data = payload(name, Path("/p"), stop_hook_active=active, loop_count=int(active))
    return parse_event(runtime, data)


def systemic_errors() -> Any:
    # Twelve errors of one rule in six files: a systemic cluster, priority 1.
    return snapshot(
        [issue(file=f"src/f{n % 6}.ts", line=n + 1, rule="no-undef") for n in range(12)]
    )


def test_a_priority_1_cluster_blocks_the_stop_although_no_flat_record_does(
    tmp_path: Path,
) -> None:
    checked = systemic_errors()
    assert checked.clustering.clusters and checked.clustering.clusters[0].priority == 1
    assert all(r.priority > 1 for r in checked.clustering.flat)
    decision = stop(
        checked,
        stop_event(),
        StopCounter(tmp_path),
        threshold=1,
        allow_partial=False,
        max_blocks=3,
    )
    assert decision.block and "no-undef" in decision.reason
    assert "(12 issues in all)" in decision.reason


def test_the_stop_reason_counts_one_issue_in_the_singular(tmp_path: Path) -> None:
    checked = snapshot([issue(rule="no-undef")])
    decision = stop(
        checked, stop_event(), StopCounter(tmp_path), threshold=3, allow_partial=False, max_blocks=3
    )
    assert decision.block and "(1 issue in all)" in decision.reason


def test_incomplete_coverage_blocks_unless_partial_is_allowed(tmp_path: Path) -> None:
    checked = snapshot([], engines={"oxlint": "ok", "eslint": "disabled"})
    counter = StopCounter(tmp_path)
    strict = stop(checked, stop_event(), counter, threshold=1, allow_partial=False, max_blocks=3)
    assert strict.block and "eslint disabled" in strict.reason
    lenient = stop(checked, stop_event(), counter, threshold=1, allow_partial=True, max_blocks=3)
    assert not lenient.block


def test_after_max_blocks_consecutive_blocks_the_host_may_stop_with_a_warning(
    tmp_path: Path,
) -> None:
    checked = systemic_errors()
    counter = StopCounter(tmp_path)
    decisions = [
        stop(
            checked,
            stop_event(active=n > 0),
            counter,
            threshold=1,
            allow_partial=False,
            max_blocks=2,
        )
        for n in range(3)
    ]
    assert [d.block for d in decisions] == [True, True, False]
    assert "2 consecutive blocks" in decisions[2].warning
    # A fresh stop (the person's next turn) starts counting again.
    fresh = stop(checked, stop_event(), counter, threshold=1, allow_partial=False, max_blocks=2)
    assert fresh.block


@pytest.mark.parametrize(
    ("runtime", "expected"),
    [
        ("claude", {"decision": "block", "reason": "R", "systemMessage": "W"}),
        ("codex", {"decision": "block", "reason": "R", "systemMessage": "W"}),
        ("gemini", {"decision": "deny", "reason": "R", "systemMessage": "W"}),
        ("cursor", {"followup_message": "R"}),
        (
            "vscode",
            {
                "hookSpecificOutput": {"hookEventName": "Stop", "decision": "block", "reason": "R"},
                "systemMessage": "W",
            },
        ),
    ],
)
def test_stop_decisions_use_each_hosts_format(runtime: str, expected: dict[str, Any]) -> None:
    decision = Decision(block=True, reason="R", warning="W")
    assert render(stop_event(runtime), decision) == expected


# --- hook files ----------------------------------------------------------------


def test_install_keeps_other_hooks_and_comments_and_is_idempotent(project: Path) -> None:
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    original = (
        "{\n  // team settings\n"
        '  "permissions": {"allow": ["Bash(ls)"]},\n'
        '  "hooks": {\n    "Stop": [\n'
        '      {"hooks": [{"type": "command", "command": "say done"}]}, // mine\n'
        "    ],\n  },\n}\n"
    )
    settings.write_text(original)
    env = {"SIGNALINT_PROJECT_ROOT": str(project)}
    preview = CliRunner().invoke(cli, ["hooks", "preview", "--runtime", "claude"], env=env)
    assert preview.exit_code == 0 and settings.read_text() == original
    done = CliRunner().invoke(cli, ["hooks", "install", "--runtime", "claude", "--yes"], env=env)
    assert done.exit_code == 0, done.output
    text = settings.read_text()
    assert "// team settings" in text and '"command": "say done"}]}, // mine' in text
    data = jsonc.loads(text)
    assert len(data["hooks"]["Stop"]) == 2
    assert data["hooks"]["PostToolUse"][0]["matcher"] == "Edit|Write|MultiEdit|NotebookEdit"
    again = CliRunner().invoke(cli, ["hooks", "install", "--runtime", "claude", "--yes"], env=env)
    assert "nothing changed" in again.output
    assert settings.read_text() == text


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_every_runtime_gets_both_hooks_in_its_own_file(project: Path, runtime: str) -> None:
    change = hook_config.plan(project, runtime, [], executable="/x/signalint")
    target = hook_config.TARGETS[runtime]
    data = jsonc.loads(change.new)
    for event in (target.edit_event, target.stop_event):
        assert f"/x/signalint hooks run --runtime {runtime}" in json.dumps(data["hooks"][event])
    if runtime == "cursor":
        assert data["version"] == 1


def test_a_malformed_hook_file_is_refused_and_kept(project: Path) -> None:
    hooks = project / ".cursor" / "hooks.json"
    hooks.parent.mkdir()
    hooks.write_text('{"version": 1, "hooks": {"stop": [}\n')
    env = {"SIGNALINT_PROJECT_ROOT": str(project)}
    result = CliRunner().invoke(cli, ["hooks", "install", "--runtime", "cursor", "--yes"], env=env)
    assert result.exit_code != 0
    assert "line 1 column 35" in str(result.exception)
    assert hooks.read_text() == '{"version": 1, "hooks": {"stop": [}\n'


# --- real runs -----------------------------------------------------------------


def run_hook(runtime: str, event: dict[str, Any], *extra: str) -> dict[str, Any]:
    done = subprocess.run(
        [str(SIGNALINT), "hooks", "run", "--runtime", runtime, *extra],
        input=json.dumps(event),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=event.get("cwd") or "/",
        env={k: v for k, v in os.environ.items() if k != "SIGNALINT_PROJECT_ROOT"},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert isinstance(data, dict)
    return data


@pytest.mark.real
@pytest.mark.parametrize("runtime", RUNTIMES)
def test_post_edit_gives_the_model_the_issues_of_the_edited_file(
    project: Path, runtime: str, real_engines: dict[str, Path]
) -> None:
    (project / "other.py").write_text("import sys\n")  # not edited: not reported
    out = run_hook(runtime, payload(EDITS[runtime], project))
    if runtime == "cursor":
        context = out["additional_context"]
    else:
        name = parse_event(runtime, payload(EDITS[runtime], project)).name
        assert out["hookSpecificOutput"]["hookEventName"] == name
        context = out["hookSpecificOutput"]["additionalContext"]
    assert "app.py:1:8" in context and "F401" in context
    assert "other.py" not in context


@pytest.mark.real
def test_a_clean_edit_and_an_unchecked_file_get_no_decision(
    project: Path, real_engines: dict[str, Path]
) -> None:
    (project / "app.py").write_text("print(1)\n")
    assert run_hook("claude", payload(EDITS["claude"], project)) == {}
    readme = payload(EDITS["claude"], project, tool_input={"file_path": str(project / "README.md")})
    assert run_hook("claude", readme) == {}


@pytest.mark.real
@pytest.mark.parametrize("runtime", RUNTIMES)
def test_stop_blocks_on_errors_then_lets_the_host_stop_after_the_cap(
    project: Path, runtime: str, real_engines: dict[str, Path]
) -> None:
    fresh = payload(STOPS[runtime], project)
    continued = payload(STOPS[runtime], project, stop_hook_active=True, loop_count=1)
    policy = ("--fail-on-priority", "5", "--max-blocks", "1")
    first = run_hook(runtime, fresh, *policy)
    assert "F401" in json.dumps(first)
    second = run_hook(runtime, continued, *policy)
    if runtime == "cursor":
        assert second == {}  # no follow-up message: the agent may stop
    else:
        assert "decision" not in second and "decision" not in second.get("hookSpecificOutput", {})
        assert "consecutive blocks" in second["systemMessage"]


@pytest.mark.real
def test_a_failing_engine_blocks_the_stop_unless_partial_coverage_is_allowed(
    project: Path, real_engines: dict[str, Path]
) -> None:
    (project / "app.py").write_text("print(1)\n")
    (project / "ruff.toml").write_text("this is = = not toml\n")
    strict = run_hook("claude", payload(STOPS["claude"], project))
    assert strict["decision"] == "block" and "ruff error" in strict["reason"]
    lenient = run_hook("claude", payload(STOPS["claude"], project), "--allow-partial")
    assert lenient == {}


# --- real hosts read the installed hook files ------------------------------------


def install(project: Path, runtime: str) -> None:
    env = {"SIGNALINT_PROJECT_ROOT": str(project)}
    done = CliRunner().invoke(cli, ["hooks", "install", "--runtime", runtime, "--yes"], env=env)
    assert done.exit_code == 0, done.output


def host_output(name: str, argv: list[str], home: Path, cwd: Path) -> str:
    from tests.hosts.test_init_clients import host

    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "NO_COLOR": "1"}
    done = subprocess.run(
        [str(host(name)), *argv],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    return done.stdout + done.stderr


@pytest.mark.real
def test_claude_code_accepts_the_installed_hooks_in_its_settings(
    project: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"hooks": {"Stop": [{"hooks": "not a list"}]}}')
    broken = host_output("claude", ["doctor"], home, project)
    assert "Invalid settings" in broken  # the host does validate this file
    settings.write_text('{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}}')
    install(project, "claude")
    out = host_output("claude", ["doctor"], home, project)
    assert "Invalid settings" not in out, out


@pytest.mark.real
def test_gemini_cli_accepts_the_installed_hooks_in_its_settings(
    project: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "trustedFolders.json").write_text(
        json.dumps({str(project): "TRUST_FOLDER"})
    )
    settings = project / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"hooks": {"AfterAgent": [{"hooks": "not a list"}]}}')
    assert "Error in: hooks.AfterAgent" in host_output("gemini", ["mcp", "list"], home, project)
    settings.write_text("{}")
    install(project, "gemini")
    out = host_output("gemini", ["mcp", "list"], home, project)
    assert "Error in" not in out and "fix the configuration" not in out, out


def test_a_changed_install_updates_our_entry_and_leaves_mixed_groups_alone(
    project: Path,
) -> None:
    first = hook_config.plan(project, "claude", [], executable="/old/signalint")
    settings = first.path
    settings.parent.mkdir()
    settings.write_text(first.new)
    updated = hook_config.plan(project, "claude", ["--max-blocks", "5"], executable="/x/signalint")
    data = jsonc.loads(updated.new)
    commands = json.dumps(data)
    assert "/old/signalint" not in commands and commands.count("--max-blocks 5") == 2
    assert len(data["hooks"]["Stop"]) == 1
    mixed = {
        "hooks": {
            "Stop": [
                {
                    "hooks": [
                        {"type": "command", "command": "say done"},
                        {"type": "command", "command": "/old/signalint hooks run --runtime claude"},
                    ]
                }
            ]
        }
    }
    settings.write_text(json.dumps(mixed))
    kept = jsonc.loads(hook_config.plan(project, "claude", [], executable="/x/signalint").new)
    assert kept["hooks"]["Stop"][0] == mixed["hooks"]["Stop"][0]  # the user's group is intact
    assert len(kept["hooks"]["Stop"]) == 2


def test_post_edit_puts_the_new_issues_first_and_remembers_what_it_reported(
    tmp_path: Path,
) -> None:
    from signalint.hosts.hook_policy import SeenIssues, post_edit

    old = issue(file="a.ts", line=1, rule="no-undef")
    fresh = issue(file="a.ts", line=9, rule="eqeqeq")
    first = post_edit(snapshot([old]), ["a.ts"], [], SeenIssues(tmp_path))
    assert first.context.startswith("Signalint: 1 new issue in the edited file (a.ts)")
    assert "no-undef" in first.context
    second = post_edit(snapshot([old, fresh]), ["a.ts"], [], SeenIssues(tmp_path))
    new_part, old_part = second.context.split("Still open from before (1):")
    assert "eqeqeq" in new_part and "no-undef" not in new_part
    assert "no-undef" in old_part
    third = post_edit(snapshot([old, fresh]), ["a.ts"], [], SeenIssues(tmp_path))
    assert third.context.startswith("No new issues in the edited file (a.ts)")
    assert post_edit(snapshot([]), ["a.ts"], [], SeenIssues(tmp_path)).context == ""
    # Fixed issues are forgotten: reintroducing one makes it new again.
    again = post_edit(snapshot([old]), ["a.ts"], [], SeenIssues(tmp_path))
    assert again.context.startswith("Signalint: 1 new issue in")
    two = post_edit(snapshot([old, issue(file="b.ts")]), ["a.ts", "b.ts"], [], None)
    assert two.context.startswith("Signalint: 2 new issues in the edited files (a.ts, b.ts)")
