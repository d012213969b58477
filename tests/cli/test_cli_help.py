"""`signalint help [COMMAND]` and `signalint -v`, as in the reference's CLI."""

from __future__ import annotations

import subprocess
import sys

import pytest

from signalint import __version__
from signalint.cli.main import main


def test_help_lists_the_commands_including_hooks(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Usage: signalint ")
    assert "hooks" in out and "doctor" in out


def test_help_names_every_registered_engine(capsys: pytest.CaptureFixture[str]) -> None:
    from signalint.engines.registry import ENGINES

    assert main(["help"]) == 0
    prose = " ".join(capsys.readouterr().out.split())
    missing = [e.spec.title for e in ENGINES.values() if e.spec.title not in prose]
    assert not missing, f"`signalint help` does not name {missing}"


def test_help_of_a_command_is_that_commands_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["help", "init"]) == 0
    out = capsys.readouterr().out
    assert "Usage: signalint init" in out and "--client" in out and "--scope" in out


@pytest.mark.parametrize("flag", ["-v", "-V", "--version"])
def test_every_version_flag_prints_the_version(
    flag: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([flag]) == 0
    assert capsys.readouterr().out == f"signalint, version {__version__}\n"


LOADED = """
import atexit, sys
sys.argv = ["signalint", sys.argv[1]]
atexit.register(lambda: print(" ".join(sorted(sys.modules)), file=sys.stderr))
from signalint.cli.main import entry
entry()
"""


@pytest.mark.parametrize("flag", ["-v", "-V", "--version"])
def test_the_console_script_prints_the_version_with_nothing_imported(flag: str) -> None:
    """`entry` answers a version flag alone as click does, without click or
    the daemon's client (what it loaded is printed at exit)."""
    done = subprocess.run(
        [sys.executable, "-c", LOADED, flag], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0
    assert done.stdout == f"signalint, version {__version__}\n"
    loaded = done.stderr.split()
    assert "signalint.cli.main" in loaded
    assert not [m for m in loaded if m.split(".")[0] == "click" or m.startswith("signalint.daemon")]
