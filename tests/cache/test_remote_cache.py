"""Two machines, one shared result store: the real CLI, real engines, a real Redis.

A "machine" is a copy of the demo project at its own absolute path with its
own state directory; both reach one redis-server on a loopback port. The
second machine must answer exactly as the first (and as a check without any
cache) while starting no engine process; tampered values, a store that
stops or hangs, and `readOnly` never change an answer.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from signalint import answers
from tests.services import Redis, redis_server
from tests.typescripts import install_typescript, typescript

pytestmark = pytest.mark.real

SIGNALINT = str(Path(sys.executable).parent / "signalint")
KEY = "a-test-signing-key-of-at-least-32-bytes"


@pytest.fixture
def redis(tmp_path: Path) -> Iterator[Redis]:
    with redis_server(tmp_path) as server:
        yield server


def machine(demo_project: Path, tmp_path: Path, name: str) -> Path:
    """Another checkout of the demo project, at another absolute path."""
    target = tmp_path / name / "checkout"
    shutil.copytree(demo_project, target, ignore=shutil.ignore_patterns(".signalint"))
    return target


def check(
    root: Path, url: str | None, *extra: str, traced: bool = False, **env: str
) -> tuple[int, dict[str, Any], str, list[str]]:
    """`signalint check --format json` in `root`: exit code, answer, stderr,
    and each process it started, as strace shows its execve (when `traced`)."""
    environment = {**os.environ, "SIGNALINT_REMOTE_CACHE_KEY": KEY, **env}
    environment.pop("SIGNALINT_STATE_DIR", None)
    if url is not None:
        environment["SIGNALINT_REMOTE_CACHE"] = url
    argv = [SIGNALINT, "check", "--format", "json", *extra]
    trace = root.parent / "trace.txt"
    strace = shutil.which("strace") if traced else None
    if traced and strace is None:
        message = "strace is not installed (.ci/run installs it with apt-get)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    if strace is not None:
        argv = [strace, "-f", "-qq", "-s", "2000", "-e", "trace=execve", "-o", str(trace), *argv]
    done = subprocess.run(argv, cwd=root, env=environment, capture_output=True, text=True)
    started = execs(trace.read_text()) if strace is not None else []
    return done.returncode, json.loads(done.stdout), done.stderr, started[1:]


def execs(text: str) -> list[str]:
    """The `execve` calls that succeeded in `strace -f` output, whole: a call
    that another process interrupted is printed as `<unfinished ...>` and
    finished on a later `<... execve resumed>` line of the same pid."""
    pending: dict[str, str] = {}
    calls: list[str] = []
    for line in text.splitlines():
        pid, _, rest = line.partition(" ")
        rest = rest.lstrip()  # strace pads the pid column
        if rest.endswith("<unfinished ...>"):
            pending[pid] = rest.removesuffix("<unfinished ...>")
            continue
        if rest.startswith("<... execve resumed>"):
            rest = pending.pop(pid, "") + rest.removeprefix("<... execve resumed>")
        if re.search(r"\)\s*=\s*0$", rest):  # and the result column
            calls.append(f"{pid} {rest}")
    return calls


def test_an_interrupted_exec_is_read_whole() -> None:
    text = (
        '10 execve("/bin/sh", ["sh"], 0x1 /* 3 vars */) = 0\n'
        '11 execve("/x/node_modules/@biomejs/cli-linux-x64/biome", ["biome"] <unfinished ...>\n'
        '12 execve("/x/oxlint", ["oxlint"], 0x2 /* 3 vars */) = 0\n'
        "11  <... execve resumed>, 0x3 /* 3 vars */)             = 0\n"
        '13 execve("/missing", ["m"], 0x4 /* 3 vars */) = -1 ENOENT (No such file or directory)\n'
    )
    found = execs(text)
    assert len(found) == 3 and any('/biome", [' in line for line in found)


def issues(answer: dict[str, Any]) -> tuple[int, str]:
    """What an answer found: its issue count, and the fingerprint over every
    issue's id (engine, file, position, rule, message)."""
    return answer["totalIssues"], answer["fingerprint"]


def test_a_second_machine_answers_from_the_shared_store_without_starting_an_engine(
    demo_project: Path, tmp_path: Path, redis: Redis
) -> None:
    first, second = machine(demo_project, tmp_path, "a"), machine(demo_project, tmp_path, "b")
    cold_code, cold, _, _ = check(first, None, "--no-cache")
    code_a, answer_a, stderr_a, _ = check(first, redis.url)
    assert stderr_a == ""
    assert answer_a["remoteCache"]["writes"] > 0
    code_b, answer_b, stderr_b, started = check(second, redis.url, traced=True)
    assert stderr_b == ""
    assert started == []  # no engine, no version look-up: every answer came from Redis
    assert code_b == code_a == cold_code == 1
    assert issues(answer_b) == issues(answer_a) == issues(cold)
    remote = answer_b["remoteCache"]
    assert remote["misses"] == 0 and remote["hits"] > 0 and remote["rejected"] == 0
    # One round trip per engine: a pack for each linter, the tsc record.
    assert remote["roundTrips"] == len(answer_b["engines"])


def test_after_an_edit_the_other_machine_reruns_only_that_file(
    demo_project: Path, tmp_path: Path, redis: Redis
) -> None:
    first, second = machine(demo_project, tmp_path, "a"), machine(demo_project, tmp_path, "b")
    check(first, redis.url)
    edited = second / "src" / "cart.ts"
    edited.write_text(edited.read_text() + "\nexport const added = 1;\n")
    os.utime(edited, (1_700_000_000, 1_700_000_000))  # settled, as a real edit is
    code, answer, stderr, started = check(second, redis.url, traced=True)
    assert stderr == ""
    cold_code, cold, _, _ = check(second, None, "--no-cache")
    assert code == cold_code and issues(answer) == issues(cold)
    # The linters that check the edited file re-ran it alone (the demo's
    # ESLint config covers JavaScript only: the shared mark says so), and
    # tsc re-ran its program.
    linted = {path for line in started for path in re.findall(r'"(src/[^"]+)"', line)}
    assert linted == {"src/cart.ts"}
    for engine in ("oxlint", "biome", "tsc"):  # Biome: its platform binary, directly
        assert any(f'/{engine}", [' in line for line in started), engine
    assert not any("eslint" in line for line in started)


def test_tampered_values_are_rejected_and_engines_rerun(
    demo_project: Path, tmp_path: Path, redis: Redis
) -> None:
    first, second = machine(demo_project, tmp_path, "a"), machine(demo_project, tmp_path, "b")
    check(first, redis.url)
    for key in redis.stored_keys():
        name = key.decode()
        redis.command("SET", name, "SGL1" + "0" * 64 + "[]")  # a forged, well-formed value
    code, answer, _, _ = check(second, redis.url)
    _, cold, _, _ = check(second, None, "--no-cache")
    assert issues(answer) == issues(cold) and code == 1
    assert answer["remoteCache"]["rejected"] > 0 and answer["remoteCache"]["hits"] == 0


@pytest.mark.parametrize("fault", ["stopped", "hung"])
def test_a_store_that_stops_or_hangs_changes_nothing_but_one_warning(
    demo_project: Path, tmp_path: Path, redis: Redis, fault: str
) -> None:
    first, second = machine(demo_project, tmp_path, "a"), machine(demo_project, tmp_path, "b")
    code_a, answer_a, _, _ = check(first, redis.url)
    if fault == "stopped":
        redis.stop()
    else:
        redis.pause()
    try:
        code, answer, stderr, _ = check(second, redis.url)
    finally:
        if fault == "hung":
            redis.resume()
    assert code == code_a and issues(answer) == issues(answer_a)
    lines = stderr.splitlines()
    assert len(lines) == 1 and "is unavailable" in lines[0], stderr
    assert redis.url.removeprefix("redis://") in lines[0]
    assert answer["remoteCache"]["errors"] == 1


def test_read_only_machines_read_and_write_nothing(
    demo_project: Path, tmp_path: Path, redis: Redis
) -> None:
    first, second = machine(demo_project, tmp_path, "a"), machine(demo_project, tmp_path, "b")
    check(first, redis.url)
    before = sorted(redis.stored_keys())
    (second / "signalint.config.json").write_text(
        json.dumps({**json.loads((second / "signalint.config.json").read_text()),
                    "remoteCache": {"url": redis.url, "readOnly": True}})
    )  # fmt: skip
    edited = second / "src" / "cart.ts"
    edited.write_text(edited.read_text() + "\nexport const readOnly = 2;\n")
    os.utime(edited, (1_700_000_000, 1_700_000_000))
    _, answer, stderr, _ = check(second, None)
    assert stderr == ""
    assert answer["remoteCache"]["hits"] > 0 and answer["remoteCache"]["writes"] == 0
    assert sorted(redis.stored_keys()) == before


def test_python_programs_are_shared_with_the_project_environment_inside_the_checkout(
    tmp_path: Path, redis: Redis, real_engines: dict[str, Path]
) -> None:
    fixture = Path(__file__).parents[1] / "fixtures" / "engines" / "mypy"
    checkouts = []
    for name in ("a", "b"):
        root = tmp_path / name / "checkout"
        shutil.copytree(fixture, root)
        settings = {"engines": {"mypy": True, "pyright": True, "ruff": True}}
        (root / "signalint.config.json").write_text(json.dumps(settings))
        # Each checkout has its own virtual environment, at its own path,
        # with the project installed editable (a .pth names its sources).
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root / ".venv")])
        for site in (root / ".venv" / "lib").glob("python*/site-packages"):
            (site / "_editable_impl_fixture.pth").write_text(f"{root / 'app'}\n")
        checkouts.append(root)
    code_a, answer_a, _, _ = check(checkouts[0], redis.url)
    assert set(answer_a["engines"]) == {"mypy", "pyright", "ruff"}
    code_b, answer_b, stderr, started = check(checkouts[1], redis.url, traced=True)
    assert stderr == "" and started == []
    assert code_b == code_a and issues(answer_b) == issues(answer_a)
    assert answer_b["remoteCache"]["misses"] == 0


def test_a_project_typescript_behind_a_pnpm_shim_needs_no_version_probe(
    tmp_path: Path, redis: Redis
) -> None:
    """pnpm writes `node_modules/.bin/tsc` as a shell script, not a link into
    the package: its version is read from the package the script runs, so
    the second machine does not start `tsc --version` either."""
    typescript(5)
    checkouts = []
    for name in ("a", "b"):
        root = tmp_path / name / "checkout"
        (root / "src").mkdir(parents=True)
        install_typescript(root, 5)
        shim = root / "node_modules" / ".bin" / "tsc"
        shim.unlink()
        shim.write_text(
            '#!/bin/sh\nbasedir=$(dirname "$0")\nexec node "$basedir/../typescript/bin/tsc" "$@"\n'
        )
        shim.chmod(0o755)
        (root / "tsconfig.json").write_text(
            json.dumps({"compilerOptions": {"strict": True, "noEmit": True}, "include": ["src"]})
        )
        (root / "src" / "a.ts").write_text('export const x: number = "text";\n')
        engines = {"tsc": True, "oxlint": False, "biome": False, "eslint": False}
        (root / "signalint.config.json").write_text(json.dumps({"engines": engines}))
        checkouts.append(root)
    code_a, answer_a, _, _ = check(checkouts[0], redis.url)
    assert answer_a["totalIssues"] == 1
    code_b, answer_b, stderr, started = check(checkouts[1], redis.url, traced=True)
    assert stderr == "" and started == []
    assert code_b == code_a and issues(answer_b) == issues(answer_a)


def test_a_check_on_a_shared_store_is_never_replayed(
    demo_project: Path, tmp_path: Path, redis: Redis
) -> None:
    """A kept answer (`signalint.answers`) would report round trips to the
    store that its replay does not make: with a store, every check runs."""
    root = machine(demo_project, tmp_path, "a")
    settle = answers.SETTLE_NS / 1e9 + 0.2
    check(root, redis.url)  # makes the state directory in the root
    time.sleep(settle)  # the project settles: an answer could be kept now
    for _ in range(2):
        _, answer, _, _ = check(root, redis.url)
        assert "remoteCache" in answer
    assert not (root / ".signalint" / answers.DIRECTORY).exists() or not any(
        (root / ".signalint" / answers.DIRECTORY).iterdir()
    )
    # Without the store the same project keeps its answer.
    for _ in range(2):
        check(root, None)
    assert any((root / ".signalint" / answers.DIRECTORY).iterdir())
