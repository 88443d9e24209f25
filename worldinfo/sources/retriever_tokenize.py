"""The retriever's tokeniser (spec retriever.md F2) and lore tokens (F9).

Casefold, delete punctuation, split on runs of any whitespace, drop empty strings. The
``"ascii"`` mode deletes exactly Python's ``string.punctuation`` (the original's set, O4); on
the ASCII texts of spec F21 condition 2 it yields the original's tokens. The ``"unicode"``
mode also deletes every Unicode punctuation character (category P*), so ``don’t`` and
``don't`` both become ``dont`` (B23, a deliberate divergence from the original).
"""

from __future__ import annotations

import string
import unicodedata
from collections.abc import Iterable, Sequence

from worldinfo.sources.retriever_settings import Punctuation

_ASCII_TABLE = {ord(c): None for c in string.punctuation}
_ASCII_BYTES = string.punctuation.encode("ascii")


class _UnicodeTable(dict[int, int | None]):
    """A ``str.translate`` table that deletes punctuation (category P*), filled on demand."""

    def __missing__(self, code: int) -> int | None:
        keep = None if unicodedata.category(chr(code)).startswith("P") else code
        self[code] = keep
        return keep


_UNICODE_TABLE = _UnicodeTable()


def tokenize(text: str, *, punctuation: Punctuation = "ascii") -> list[str]:
    """Return the tokens of ``text`` in order, repeats kept.

    Args:
        text: any text.
        punctuation: ``"ascii"`` or ``"unicode"`` (see the module docstring).

    Returns:
        Non-empty tokens without ASCII spaces or removed punctuation.
    """
    if text.isascii():  # the same tokens, by bytes.translate (a C table, no dict per char)
        plain = text.lower().encode("ascii").translate(None, _ASCII_BYTES).decode("ascii")
        return plain.split()
    folded = text.casefold().translate(_ASCII_TABLE)
    if punctuation == "unicode" and not folded.isascii():
        folded = folded.translate(_UNICODE_TABLE)
    return folded.split()


def tokenize_many(texts: Sequence[str], *, punctuation: Punctuation = "ascii") -> list[list[str]]:
    """Return ``[tokenize(t) for t in texts]``, the ASCII case in one pass over all of them.

    ASCII texts are joined with NUL (neither whitespace nor punctuation, so it survives the
    lower-casing and the deletion and cuts the result back into the texts); a text holding a
    NUL itself, or any non-ASCII text, sends the whole call through ``tokenize``.

    Args:
        texts: any texts.
        punctuation: ``"ascii"`` or ``"unicode"`` (see the module docstring).
    """
    joined = "\0".join(texts)
    if not texts or not joined.isascii() or joined.count("\0") != len(texts) - 1:
        return [tokenize(text, punctuation=punctuation) for text in texts]
    plain = joined.lower().encode("ascii").translate(None, _ASCII_BYTES).decode("ascii")
    return [part.split() for part in plain.split("\0")]


def looks_like_regex(key: str) -> bool:
    """Whether a World Info key is written as a JavaScript regex literal (``/.../flags``)."""
    if len(key) < 3 or not key.startswith("/"):
        return False
    end = key.rfind("/")
    return end > 0 and all(c in "dgimsuvy" for c in key[end + 1 :])


def lore_tokens(keys: Iterable[str], *, punctuation: Punctuation = "ascii") -> frozenset[str]:
    """Return the lore tokens of lorebook keys (F9).

    A single-token key contributes its token; a multi-token key contributes each of its
    tokens (the spec's documented choice). Regex keys (``/.../``) contribute nothing.

    Args:
        keys: keys as written in the lorebook.
        punctuation: the tokeniser mode.

    Returns:
        The set of tokens.
    """
    out: set[str] = set()
    for key in keys:
        if looks_like_regex(key):
            continue
        out.update(tokenize(key, punctuation=punctuation))
    return frozenset(out)
