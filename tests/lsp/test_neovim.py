"""A real editor: Neovim's built-in LSP client (headless) on a file of the demo.

Neovim starts `signalint lsp`, opens `src/user.ts`, and once its
diagnostics arrive the test reads `vim.diagnostic.get()` and compares it,
with multiplicity, with `signalint check --no-cache` of the same file.
Debian's `neovim` (0.7 and later: `vim.lsp.start_client`, `vim.diagnostic`).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from signalint.engines import resolve
from tests.lsp.harness import SIGNALINT

pytestmark = pytest.mark.real

SCRIPT = """
local root, out = vim.env.SL_ROOT, vim.env.SL_OUT
local want = tonumber(vim.env.SL_WANT)
vim.cmd('edit ' .. root .. '/src/user.ts')
local id = vim.lsp.start_client({name = 'signalint', cmd = {vim.env.SL_BIN, 'lsp'},
                                 root_dir = root})
vim.lsp.buf_attach_client(0, id)
vim.wait(120000, function() return #vim.diagnostic.get(0) >= want end, 100)
vim.wait(2000)
local items = {}
for _, d in ipairs(vim.diagnostic.get(0)) do
  table.insert(items, {lnum = d.lnum, col = d.col, message = d.message,
                       severity = d.severity, source = d.source or ''})
end
local f = io.open(out, 'w')
f:write(vim.fn.json_encode(items))
f:close()
vim.lsp.stop_client(id)
vim.wait(3000, function() return vim.lsp.get_client_by_id(id) == nil end, 100)
vim.cmd('qa!')
"""


def _cli(root: Path, file: str) -> Counter[tuple[int, int, str, int, str]]:
    done = subprocess.run(
        [str(SIGNALINT), "check", "--no-cache", "--format", "sarif"],
        cwd=root, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    found: Counter[tuple[int, int, str, int, str]] = Counter()
    for run in json.loads(done.stdout)["runs"]:
        engine = run["tool"]["driver"]["name"]
        for result in run["results"]:
            place = result["locations"][0]["physicalLocation"]
            if place["artifactLocation"]["uri"] != file:
                continue
            region = place["region"]
            engines = ", ".join((engine, *result.get("properties", {}).get("alsoReportedBy", [])))
            severity = 1 if result["level"] == "error" else 2
            key = (region["startLine"] - 1, region["startColumn"] - 1,
                   result["message"]["text"], severity, engines)  # fmt: skip
            found[key] += 1
    return found


def test_neovim_shows_what_the_cli_reports(demo_project: Path, tmp_path: Path) -> None:
    nvim = shutil.which("nvim")
    if nvim is None:
        pytest.skip("Neovim is not installed (Debian: apt-get install neovim)")
    expected = _cli(demo_project, "src/user.ts")
    assert expected
    script = tmp_path / "signalint.lua"
    script.write_text(SCRIPT)
    out = tmp_path / "diagnostics.json"
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "SL_ROOT": str(demo_project),
        "SL_OUT": str(out),
        "SL_WANT": str(expected.total()),
        "SL_BIN": str(SIGNALINT),
        "SIGNALINT_WORK_DIR": str(tmp_path / "work"),
        # HOME is the test's: the pinned engines stay where they are.
        "SIGNALINT_ENGINES_DIR": str(resolve.managed_dir()),
    }
    subprocess.run(
        [nvim, "--headless", "--clean", "-c", f"luafile {script}"],
        cwd=demo_project, env=env, timeout=240, check=True, capture_output=True,
    )  # fmt: skip
    shown = Counter(
        (d["lnum"], d["col"], d["message"], d["severity"], d["source"])
        for d in json.loads(out.read_text())
    )
    assert shown == expected
