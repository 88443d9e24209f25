"""The retriever's tokeniser (spec retriever.md F2) and lore tokens (F9).

Casefold, delete punctuation, split on runs of any whitespace, drop empty strings. The
``"ascii"`` mode deletes exactly Python's ``string.punctuation`` (the original's set, O4); on
the ASCII texts of spec F21 condition 2 it yields the original's tokens. The ``"unicode"``
mode also deletes every Unicode punctuation character (category P*), so ``don’t`` and
``don't`` both become ``dont`` (B23, a deliberate divergence from the original).
"""

from __future__ import annotations

import itertools
import operator
import string
import unicodedata
from collections.abc import Iterable, Sequence

from worldinfo.sources.retriever_settings import Punctuation

_ASCII_TABLE = {ord(c): None for c in string.punctuation}
_ASCII_BYTES = string.punctuation.encode("ascii")
_LOWER_BYTES = bytes.maketrans(string.ascii_uppercase.encode(), string.ascii_lowercase.encode())
"""``str.lower`` of ASCII text as a byte table: the fold and the deletion are one pass."""


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
        return text.encode("ascii").translate(_LOWER_BYTES, _ASCII_BYTES).decode("ascii").split()
    folded = text.casefold().translate(_ASCII_TABLE)
    if punctuation == "unicode" and not folded.isascii():
        folded = folded.translate(_UNICODE_TABLE)
    return folded.split()


SEPARATOR = " \0 "
"""What ``tokenize_batch`` joins texts with: NUL is neither whitespace nor punctuation in
either mode, so it survives folding and deletion and stands as one token between texts."""


def tokenize_batch(
    texts: Sequence[str], *, punctuation: Punctuation = "ascii"
) -> tuple[list[str], list[int]]:
    """Tokenise many texts in one pass: every token in one list, and where each text lies.

    The texts are joined with ``SEPARATOR`` and tokenised once (one fold, one deletion, one
    split over the whole batch): the folding, the deletion and the split act on each
    character alone, so this gives each text's own tokens, with one ``"\0"`` token between
    two texts. A text holding a NUL itself sends the call through ``tokenize`` per text
    (the layout is the same).

    Args:
        texts: any texts.
        punctuation: ``"ascii"`` or ``"unicode"`` (see the module docstring).

    Returns:
        ``(words, cuts)``: text ``k``'s tokens are ``words[cuts[k] + 1 : cuts[k + 1]]``;
        ``cuts`` has ``len(texts) + 1`` entries, from ``-1`` to ``len(words)``, and the
        positions between are the separator tokens.
    """
    joined = SEPARATOR.join(texts)
    cuts = [-1]
    if texts and not any(map(operator.contains, texts, itertools.repeat("\0"))):
        words = tokenize(joined, punctuation=punctuation)
        at = -1
        find = words.index
        for _ in range(len(texts) - 1):
            at = find("\0", at + 1)
            cuts.append(at)
    else:  # no texts, or a NUL inside a text: one by one, the same layout
        words = []
        for k, text in enumerate(texts):
            if k:
                cuts.append(len(words))
                words.append("\0")
            words.extend(tokenize(text, punctuation=punctuation))
    if texts:
        cuts.append(len(words))
    return words, cuts


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
