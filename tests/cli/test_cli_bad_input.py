"""No internal errors from bad input (issue 39, part 4).

A property test draws arguments of every kind for every subcommand
(strings, huge and negative numbers, paths, leading dashes, unicode) and
holds that parsing them ends in a value or a usage error, never in an
exception of ours; a few real runs through `main` hold that no run ends
in "internal error". Then the single cases the issue names: a shard
count past any bound, a state directory that cannot be written (one
message naming SIGNALINT_STATE_DIR, for `check` and `daemon start`),
`--changed` outside a git repository, `merge`'s ids that `show` resolves,
store URLs echoed as written, and a `remoteCache` block without `url`.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from signalint.cache.remote_url import store_options
from signalint.cli.group import cli
from signalint.cli.main import main
from signalint.settings.config import load_config
from signalint.settings.homes import ConfigError

# (path of words, command) for every leaf command of the CLI.
Leaf = tuple[tuple[str, ...], click.Command]


def leaves() -> list[Leaf]:
    found: list[Leaf] = []

    def walk(group: click.Group, ctx: click.Context, words: tuple[str, ...]) -> None:
        for name in group.list_commands(ctx):
            command = group.get_command(ctx, name)
            assert command is not None
            if isinstance(command, click.Group):
                walk(command, click.Context(command, parent=ctx, info_name=name), (*words, name))
            else:
                found.append(((*words, name), command))

    walk(cli, click.Context(cli, info_name="signalint"), ())
    return found


LEAVES = leaves()

TEXT = st.one_of(
    st.text(max_size=30),
    st.sampled_from(
        [
            "",
            "-",
            "--",
            "-x",
            "--help-me",
            "0",
            "-1",
            "1/100000000000000000000",
            "100000000000000000000",
            "9" * 400,
            "1e999",
            "nan",
            "0/0",
            "1/0",
            "../../etc/passwd",
            "/",
            ".",
            "a,,b",
            "eslint,",
            "ESLINT",
            "tsc,tsc",
            "redis://",
            "ünïcødé",
            "x" * 5000,
        ]
    ),
    st.integers().map(str),
)


# Values a parameter of each kind is likely to accept, mixed with any text.
PLAUSIBLE_PATHS = st.sampled_from(["src", "src/a.ts", "signalint.config.json", "out/report"])


@functools.cache
def value(parameter: click.Parameter) -> st.SearchStrategy[str]:
    """Values for `parameter`: of its own kind (choices, numbers at and past
    its bounds, paths in the project), or any text. Built once per parameter:
    a strategy built anew for every draw is validated anew, which took most
    of the property test's time (the values drawn are the same)."""
    kind = parameter.type
    own: st.SearchStrategy[str] = TEXT
    if isinstance(kind, click.Choice):
        own = st.sampled_from([str(c) for c in kind.choices])
    elif isinstance(kind, click.IntRange | click.types.IntParamType):
        own = st.one_of(st.integers(-3, 12), st.integers(min_value=10**6)).map(str)
    elif isinstance(kind, click.Path) or parameter.name in ("paths", "files", "report"):
        own = PLAUSIBLE_PATHS
    elif parameter.name in ("only", "skip"):
        own = st.lists(st.sampled_from(["biome", "tsc", "eslint", "ruff"]), min_size=1).map(
            ",".join
        )
    elif parameter.name == "shard":
        own = st.tuples(st.integers(0, 4), st.integers(0, 4)).map(lambda t: f"{t[0]}/{t[1]}")
    return st.one_of(own, own, TEXT)


@functools.cache
def option_lists(command: click.Command) -> st.SearchStrategy[list[click.Option]]:
    options = [p for p in command.params if isinstance(p, click.Option)]
    return st.lists(st.sampled_from(options), max_size=4) if options else st.just([])


@functools.cache
def spellings(option: click.Option) -> st.SearchStrategy[str]:
    return st.sampled_from([*option.opts, *option.secondary_opts])


ARGUMENT_COUNTS = st.integers(0, 2)


@st.composite
def arguments(draw: st.DrawFn, command: click.Command) -> list[str]:
    """Some of `command`'s options, each with a value of any kind, and arguments."""
    argv: list[str] = []
    for option in draw(option_lists(command)):
        if option.name == "help":
            continue
        argv.append(draw(spellings(option)))
        if not (option.is_flag or option.count):
            argv.append(draw(value(option)))
    for argument in (p for p in command.params if isinstance(p, click.Argument)):
        count = 1 if argument.nargs == 1 else draw(ARGUMENT_COUNTS)
        argv += [draw(value(argument)) for _ in range(count)]
    return draw(st.permutations(argv)) if draw(st.booleans()) else argv


@pytest.mark.parametrize(("words", "command"), LEAVES, ids=[" ".join(w) for w, _ in LEAVES])
@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_parsing_any_arguments_ends_in_values_or_a_usage_error(
    words: tuple[str, ...], command: click.Command, data: st.DataObject
) -> None:
    argv = data.draw(arguments(command))
    # A usage error (exit 2), or --help/--version; anything else fails.
    with contextlib.suppress(click.ClickException, click.exceptions.Exit):
        command.make_context(" ".join(("signalint", *words)), list(argv))


@pytest.fixture
def small_project(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "signalint.config.json").write_text(
        json.dumps({"engines": {"oxlint": False, "tsc": False, "biome": True, "eslint": False}})
    )
    (root / "biome.json").write_text('{"linter": {"enabled": true}}')
    (root / "src" / "a.ts").write_text('export const a = "x" + 1;\n')
    (root / "out").mkdir()
    cwd = os.getcwd()
    os.chdir(root)
    try:
        yield root
    finally:
        os.chdir(cwd)


# Commands that read (or write only in the state directory): run for real.
READING = (
    ("check",),
    ("merge",),
    ("show",),
    ("ingest",),
    ("stats",),
    ("cache", "info"),
    ("engines", "list"),
    ("daemon", "status"),
)
RUNNABLE = [(w, c) for w, c in LEAVES if w in READING]


@pytest.mark.real
@settings(
    max_examples=int(os.environ.get("SIGNALINT_PROPERTY_RUNS", "25")),
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
@given(data=st.data())
def test_running_any_arguments_never_ends_in_an_internal_error(
    small_project: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    data: st.DataObject,
) -> None:
    monkeypatch.setenv("SIGNALINT_DAEMON", "0")
    monkeypatch.delenv("SIGNALINT_PROJECT_ROOT", raising=False)
    words, command = data.draw(st.sampled_from(RUNNABLE))
    argv = data.draw(arguments(command))
    if "--changed" in argv or "--new-from-rev" in argv or "--new-from-merge-base" in argv:
        argv.append("--no-cache")  # git runs are quick; engines need not rerun
    code = main([*words, *argv])
    err = capsys.readouterr().err
    event(f"{' '.join(words)} exit {code}")
    assert "internal error" not in err, (words, argv, err)
    assert code in (0, 1, 2, 130), (words, argv, code, err)


# The cases the issue names.


def test_a_shard_count_past_any_bound_is_a_usage_error(
    demo_copy: Path, in_project: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    in_project(demo_copy)
    for value in ("1/100000000000000000000", "1/1001", "5/" + "9" * 30):
        assert main(["check", "--shard", value]) == 2
        err = capsys.readouterr().err
        assert "'--shard'" in err and "N <= 1000" in err and "internal error" not in err


def _unwritable(tmp_path: Path) -> Path:
    """A state directory nobody can create, whoever runs the test (root
    too): its parent is a file."""
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    return blocker / "state"


@pytest.mark.parametrize("argv", [["check"], ["daemon", "start"]])
def test_an_unwritable_state_directory_is_one_message_naming_the_variable(
    demo_copy: Path,
    in_project: Any,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    argv: list[str],
) -> None:
    in_project(demo_copy)
    state = _unwritable(tmp_path)
    monkeypatch.setenv("SIGNALINT_STATE_DIR", str(state))
    monkeypatch.delenv("SIGNALINT_DAEMON", raising=False)
    code = main(argv)
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert "SIGNALINT_STATE_DIR" in lines[0] and str(state) in lines[0]
    assert "cannot be written" in lines[0] and "internal error" not in lines[0]


def test_changed_outside_a_git_repository_says_so(
    tmp_path: Path, in_project: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "plain"
    root.mkdir()
    (root / "package.json").write_text("{}")
    in_project(root)
    for option in (["--changed"], ["--new-from-rev", "HEAD"]):
        assert main(["check", *option]) == 2
        err = capsys.readouterr().err
        assert "not a git repository" in err, err


@pytest.mark.parametrize(
    "url",
    [
        "redis:/host",
        "redis://host:99999",
        "s3:bucket",
        "webdav://[::1",
        "not a url",
        "REDIS",
        "fs://relative/dir",
    ],
)
def test_a_malformed_store_url_is_echoed_as_written(url: str) -> None:
    with pytest.raises(ValueError, match=r"accepted|names|expected") as raised:
        store_options(url)
    assert url in str(raised.value)


def test_a_store_url_shown_in_a_message_keeps_no_secret() -> None:
    with pytest.raises(ValueError) as raised:
        store_options("redis://user:hunter2@host:99999/0?password=hunter3")
    assert "hunter" not in str(raised.value) and "redis://host:99999/0" in str(raised.value)


def test_a_remote_cache_block_without_url_takes_it_from_the_environment(
    tmp_path: Path,
) -> None:
    (tmp_path / "signalint.config.json").write_text(
        json.dumps({"remoteCache": {"readOnly": True, "namespace": "team"}})
    )
    env = {"SIGNALINT_REMOTE_CACHE": "redis://cache:6379"}
    remote = load_config(tmp_path, env).remote_cache
    assert remote is not None
    assert (remote.url, remote.read_only, remote.namespace) == ("redis://cache:6379", True, "team")
    with pytest.raises(ConfigError) as raised:
        load_config(tmp_path, {})
    said = str(raised.value)
    assert "remoteCache.url" in said and "SIGNALINT_REMOTE_CACHE" in said and "null" not in said
    # A url that is there but not a string is still refused as before.
    (tmp_path / "signalint.config.json").write_text(json.dumps({"remoteCache": {"url": None}}))
    with pytest.raises(ConfigError, match="expected a store URL string"):
        load_config(tmp_path, env)


def _hand_built_shards(tmp_path: Path) -> list[str]:
    from tests.service.test_shards import _shard_output, _some_issues, _write

    issues = _some_issues()
    parts = [issues[:3], issues[3:]]
    return [
        _write(tmp_path, f"{i}.json", _shard_output(part, i, 2, form="json"))
        for i, part in enumerate(parts, start=1)
    ]


def test_merge_names_only_ids_that_show_expands(
    tmp_path: Path, in_project: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    files = _hand_built_shards(tmp_path)
    in_project(tmp_path)
    target = tmp_path / "merged.json"
    assert main(["merge", "--output-file", str(target), *files]) == 1
    merged = json.loads(target.read_text())
    assert merged["checkId"] in merged["nextStep"]
    capsys.readouterr()
    assert main(["show", merged["checkId"]]) == 0
    assert merged["checkId"] in capsys.readouterr().out
    some = (merged["clusters"] or merged["remainingIssues"])[0]
    assert main(["show", some.get("clusterId") or some["issueId"]]) == 0


def test_merge_where_its_check_cannot_be_kept_names_no_id(
    tmp_path: Path,
    in_project: Any,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    files = _hand_built_shards(tmp_path)
    in_project(tmp_path)
    monkeypatch.setenv("SIGNALINT_STATE_DIR", str(_unwritable(tmp_path)))
    assert main(["merge", *files]) == 1
    merged = json.loads(capsys.readouterr().out)
    assert merged["checkId"] not in merged["nextStep"]


def _store_with_remote(tmp_path: Path, url: str, warnings: list[str]) -> Any:
    from signalint.cache.check_store import CheckStore
    from signalint.cache.local_store import ResultCache
    from signalint.cache.memory import StoreMemory
    from signalint.cache.remote import RemoteTier, open_remote
    from signalint.settings.config import RemoteSettings

    env = {"SIGNALINT_REMOTE_CACHE_KEY": "k" * 32}
    remote = open_remote(RemoteSettings(url), env, warnings.append)
    assert isinstance(remote, RemoteTier), remote
    return CheckStore(ResultCache(tmp_path / "state"), StoreMemory(), remote=remote), remote


def _entries(count: int) -> Any:
    from signalint.cache.check_store import Writes

    return Writes(entries={f"key{n}": () for n in range(count)})


@pytest.mark.parametrize("why", ["store down", "backlog full"])
def test_the_remote_counters_never_show_a_write_that_did_not_happen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, why: str
) -> None:
    warnings: list[str] = []
    shared = tmp_path / "shared"
    shared.mkdir()
    if why == "backlog full":
        from signalint.cache import remote as remote_module

        monkeypatch.setattr(remote_module, "MAX_PENDING_BYTES", 0)
    store, remote = _store_with_remote(tmp_path, f"fs://{shared}", warnings)
    if why == "store down":  # the store's directory became a file: every access fails
        shutil.rmtree(shared)
        shared.write_text("")
    store.keep([_entries(3)])
    remote.flush()
    counts = store.remote_counts()
    assert counts is not None and counts.writes == 0 == remote.counts.writes


def test_the_remote_counters_count_the_writes_that_happen(tmp_path: Path) -> None:
    warnings: list[str] = []
    store, remote = _store_with_remote(tmp_path, f"fs://{tmp_path / 'shared'}", warnings)
    store.keep([_entries(3)])
    counts = store.remote_counts()
    remote.flush()
    assert counts is not None and counts.writes == 3 == remote.counts.writes
    assert warnings == []
