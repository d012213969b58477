"""Counted nouns agree with their count, verb and pronoun included."""

from __future__ import annotations

import pytest

from signalint.wording import count, plural, them, they


@pytest.mark.parametrize(
    ("n", "expected"),
    [
        (0, "0 file sets were evicted"),
        (1, "1 file set was evicted"),
        (2, "2 file sets were evicted"),
    ],
)
def test_the_noun_and_the_verb_follow_the_count(n: int, expected: str) -> None:
    assert count(n, "file set", "was evicted") == expected


@pytest.mark.parametrize(
    ("singular", "verb", "two"),
    [
        ("issue", "is", "2 issues are"),
        ("diagnostic", "has", "2 diagnostics have"),
        ("more issue", "matches", "2 more issues match"),
        ("result", "stays", "2 results stay"),
        ("entry", "does", "2 entries do"),
        ("match", "passes", "2 matches pass"),
    ],
)
def test_plural_forms_of_nouns_and_verbs(singular: str, verb: str, two: str) -> None:
    assert count(1, singular, verb) == f"1 {singular} {verb}"
    assert count(2, singular, verb) == two


def test_plural_overrides_and_pronouns() -> None:
    assert plural("day") == "days" and plural("box") == "boxes"
    assert count(3, "child", plural_noun="children") == "3 children"
    assert (them(1), them(2), they(1), they(2)) == ("it", "them", "it", "they")
