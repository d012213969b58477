"""Each front end words every step: tools for the server, commands for the CLI."""

from __future__ import annotations

import typing

from signalint.formats.commands import command_words
from signalint.server.catalog import TOOLS
from signalint.steps import Action, Step

ACTIONS: tuple[Action, ...] = typing.get_args(Action)


def steps() -> list[Step]:
    return [Step(action, "c0ffee12", ("file", "src/a.ts")) for action in ACTIONS]


def test_the_server_words_every_step_with_a_tool_and_no_command() -> None:
    from signalint.server.words import tool_words

    for step in steps():
        phrase = tool_words(step)
        assert any(name in phrase for name in TOOLS), step
        assert "signalint " not in phrase


def test_the_cli_words_every_step_with_a_command_and_no_tool() -> None:
    for step in steps():
        phrase = command_words(step)
        assert "`signalint " in phrase, step
        assert not any(name in phrase for name in TOOLS)


def test_a_step_names_its_check_and_example_filter_where_the_action_needs_them() -> None:
    from signalint.server.words import tool_words

    listing = tool_words(Step("list", "c0ffee12", ("engine", "tsc")))
    assert listing == 'with list_issues (checkId "c0ffee12", filter e.g. engine "tsc")'
    assert command_words(Step("detail", "c0ffee12")) == "`signalint show c0ffee12`"
