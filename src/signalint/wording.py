"""Counted nouns in the sentences people and models read: "1 issue was", "2 issues were".

Every summary, hook message and text-format line that puts a number before a
noun (and a verb or pronoun after it) goes through `count` and `them`/`they`,
so a count of 1 never reads "1 issues" or "1 ... were".
"""

from __future__ import annotations

from typing import Final

# Singular verb -> plural verb, for the verbs that are not "drop the s".
_IRREGULAR: Final = {"is": "are", "was": "were", "has": "have", "does": "do"}


def plural(noun: str) -> str:
    """The plural of `noun` (its last word): issue -> issues, match -> matches, entry -> entries."""
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    if noun.endswith("y") and noun[-2:-1] not in ("a", "e", "i", "o", "u", ""):
        return noun[:-1] + "ies"
    return noun + "s"


def _plural_verb(verb: str) -> str:
    first, _, rest = verb.partition(" ")  # "was evicted" -> "were evicted"
    if first in _IRREGULAR:
        first = _IRREGULAR[first]
    elif first.endswith(("ches", "shes", "sses", "xes")):
        first = first[:-2]
    elif first.endswith("s") and not first.endswith("ss"):
        first = first[:-1]
    return f"{first} {rest}" if rest else first


def count(n: int, noun: str, verb: str = "", *, plural_noun: str | None = None) -> str:
    """`n`, then `noun` and `verb` (both given in the singular) agreeing with it.

    count(1, "file set", "was evicted") == "1 file set was evicted";
    count(2, "file set", "was evicted") == "2 file sets were evicted";
    count(0, "issue") == "0 issues". `plural_noun` overrides the plural form.
    """
    words = f"{n} {noun}" if n == 1 else f"{n} {plural_noun or plural(noun)}"
    if verb:
        words += " " + (verb if n == 1 else _plural_verb(verb))
    return words


def them(n: int) -> str:
    """The object pronoun for `n` things: "it" or "them"."""
    return "it" if n == 1 else "them"


def they(n: int) -> str:
    """The subject pronoun for `n` things: "it" or "they"."""
    return "it" if n == 1 else "they"


__all__ = ["count", "plural", "them", "they"]
