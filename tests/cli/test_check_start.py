"""What a cold `signalint check` loads: only what its request needs (issue 40).

The time a check spends before its first engine starts is added to the
engines' own; the modules of a shared store, a comparison with a revision
(`--new-from-rev`) and a CI shard (`--shard`) load only for the requests
that use them. Each check runs as the console script does, in its own
process, and records the modules it held at exit (the record of the same
check with the option shows what the record would catch).

Real engines: Oxlint.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import require_engine
from tests.helpers import RECORDING

pytestmark = pytest.mark.real

REMOTE = "signalint.cache.remote"
REVISION = "signalint.pipeline.at_revision"
SHARDS = "signalint.pipeline.shards"
KEY = "a-test-signing-key-of-at-least-32-bytes"


def write_project(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "package.json").write_text('{"name": "start", "private": true}\n')
    (root / "a.ts").write_text("let unused = 1;\ndebugger;\n")
    engines = {"oxlint": True, "tsc": False, "biome": False, "eslint": False}
    (root / "signalint.config.json").write_text(json.dumps({"engines": engines}))
    return Path(os.path.realpath(root))


def held(root: Path, *args: str, **env: str) -> set[str]:
    """The modules `signalint check --no-daemon ARGS` held at exit, in `root`."""
    record = root.parent / "modules.txt"
    environment = {k: v for k, v in os.environ.items() if not k.startswith("SIGNALINT_")}
    environment.update(env, SIGNALINT_TEST_MODULES=str(record))
    done = subprocess.run(
        [sys.executable, "-c", RECORDING, "check", "--no-daemon", *args],
        cwd=root, env=environment, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr  # Oxlint's findings: the check ran
    modules = set(record.read_text().split())
    assert "signalint.pipeline.check_run" in modules, "the record is not of a check"
    return modules


def test_a_plain_check_loads_no_shared_store_revision_or_shard(tmp_path: Path) -> None:
    require_engine("oxlint")
    root = write_project(tmp_path / "p")
    assert held(root, "--no-cache").isdisjoint({REMOTE, REVISION, SHARDS})
    assert not {REMOTE, REVISION, SHARDS} & held(root)  # with the result cache


def test_the_options_that_need_them_load_them(tmp_path: Path) -> None:
    require_engine("oxlint")
    root = write_project(tmp_path / "p")
    assert SHARDS in held(root, "--no-cache", "--shard", "1/2")
    shared = f"fs://{tmp_path / 'shared'}"
    remote = held(root, SIGNALINT_REMOTE_CACHE=shared, SIGNALINT_REMOTE_CACHE_KEY=KEY)
    assert REMOTE in remote and REVISION not in remote
