"""JavaScript regex keys: SillyTavern's key rule, V8's pattern semantics, a time bound.

A key written ``/pattern/flags`` is a JavaScript regular expression (spec R22-R23,
``js-regex.md``). ``regex_key`` applies SillyTavern's ``parseRegexFromString`` rule to an already
trimmed key, translates the pattern to the ``regex`` module (``worldinfo._js.regex.parse``) and caches the
compiled result; ``RegexKey.test`` is ``RegExp.prototype.test`` on the raw scan text, bounded in
time. The compile cache is this module's only global state.
"""

from __future__ import annotations

import functools
import re

from worldinfo._js.regex.fold import fold_text, prepare
from worldinfo._js.regex.names import JSSyntaxError
from worldinfo._js.regex.parse import translate
from worldinfo._js.regex.sure import compiles_surely
from worldinfo._lazy import lazy_logger
from worldinfo._record import field, record

log = lazy_logger(__name__)

DEFAULT_TIMEOUT = 0.25
"""Seconds (``regex``'s own clock) allowed per test; ordinary keys need well under 1 ms."""

CACHE_SIZE = 16_384
"""Distinct keys kept compiled (a book with half of 5,000 entries on regex keys has ~6,500:
a smaller cache recompiled them on every scan). A compiled key is a few KiB."""

MAX_PATTERN = 10_000
"""Longest pattern (characters between the slashes) compiled; longer keys are refused."""
MAX_BRANCHES = 2_000
"""Most alternatives (``|`` characters + 1) a pattern may have; more are refused."""
MAX_TRANSLATED = 40_000
"""Longest translation (``regex`` syntax, classes spelled out) handed to ``regex.compile``."""
KEY_SHOWN = 200
"""Most characters of a key quoted in a warning or log line."""

_RULE_FLAGS = frozenset("gimsuy")


TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from typing import Protocol

    class _Compiled(Protocol):
        """The part of a compiled ``regex`` pattern this module uses."""

        def search(self, string: str, *, timeout: float) -> object | None: ...

        def match(self, string: str, *, timeout: float) -> object | None: ...


def shown(key: str) -> str:
    """``repr`` of at most ``KEY_SHOWN`` characters of ``key``, saying how much was cut."""
    if len(key) <= KEY_SHOWN:
        return repr(key)
    return f"{key[:KEY_SHOWN]!r}... ({len(key) - KEY_SHOWN} more characters)"


class RegexTimeout(Exception):
    """A regex key could not be decided within its bound; the engine counts it as no match.

    Attributes:
        key: the key text (as written, after trimming).
        reason: what happened (``"timed out"``, or why the key was refused).
        refused: the key is never run (compiling it would be unbounded), on any text.
    """

    def __init__(self, key: str, reason: str = "timed out", *, refused: bool = False) -> None:
        super().__init__(f"regex key {shown(key)}: {reason}")
        self.key = key
        self.reason = reason
        self.refused = refused


@record
class RegexKey:
    """A compiled regex key.

    Args:
        source: the pattern handed to ``new RegExp`` (after the rule's ``\\/`` rewrite).
        flags: the flags handed to ``new RegExp``.
    """

    source: str
    flags: str
    key: str = field(default="", compare=False)
    compiled: _Compiled = field(repr=False, compare=False)
    exact_below: int | None = field(default=None, repr=False, compare=False)
    anchored: bool = field(default=False, repr=False, compare=False)
    refused: str | None = field(default=None, repr=False, compare=False)
    needles: tuple[str, ...] | None = field(default=None, repr=False, compare=False)
    """One of these occurs in every text the key matches (in its ``_js.lower`` form when
    ``lowered``); ``None``: no prefilter is known (``literals``)."""
    line_local: bool = field(default=False, repr=False, compare=False)
    """``test(text)`` equals ``any(test(line))`` over the lines of ``text`` (``literals``)."""

    @property
    def lowered(self) -> bool:
        """Are ``needles`` compared with the text's ``_js.lower`` form (the ``i`` flag)?"""
        return "i" in self.flags

    def test(self, haystack: str, *, timeout: float = DEFAULT_TIMEOUT) -> bool:
        """``RegExp.prototype.test`` of a fresh ``new RegExp(source, flags)`` on ``haystack``.

        Args:
            haystack: the raw scan text.
            timeout: seconds allowed for the match.

        Returns:
            Whether the pattern matches (with ``y``: a match starting at index 0).

        Raises:
            RegexTimeout: the match did not finish within ``timeout``, the key was refused
                at compile time (``refused``), or a counted repeat too large to compile
                was clipped and the text is long enough for that to matter.
        """
        if self.refused is not None:
            raise RegexTimeout(self.key, self.refused, refused=True)
        unicode = "u" in self.flags
        text = haystack if unicode else _utf16_units(haystack)
        if "i" in self.flags:
            text = fold_text(text, unicode=unicode)
        if self.exact_below is not None and len(text) >= self.exact_below:
            raise RegexTimeout(self.key, "counted repeat beyond the compile limit")
        try:
            if "y" in self.flags or self.anchored:
                return self.compiled.match(text, timeout=timeout) is not None
            return self.compiled.search(text, timeout=timeout) is not None
        except TimeoutError:
            raise RegexTimeout(self.key) from None


def split_key(key: str) -> tuple[str, str] | None:
    """SillyTavern's rule: ``(pattern, flags)`` for a regex-shaped key, else ``None``.

    Args:
        key: the trimmed key.

    Returns:
        The pattern (with its first ``\\/`` rewritten to ``/``) and the flags, or ``None``
        when the rule refuses the key. Repeated flags pass the rule (V8 refuses them later).
    """
    if not key.startswith("/"):
        return None
    last = key.rfind("/")
    if last < 2:
        return None
    flags = key[last + 1 :]
    if not all(c in _RULE_FLAGS for c in flags):
        return None
    pattern = key[1:last]
    if "/" in pattern.replace("\\/", ""):  # a "/" not preceded by a backslash
        return None
    return pattern.replace("\\/", "/", 1), flags


def prepare_tables(key: str) -> None:
    """Build the one-time tables compiling ``key`` needs (case folding for ``i`` keys), so
    that the time of ``regex_key(key)`` is the key's own. An ``i`` key of ASCII letters,
    punctuation and ``\\b`` needs none to be read (``fold`` answers ASCII itself): its first
    test builds the table it folds the text with, within that test's time."""
    parts = split_key(key)
    if parts is not None and "i" in parts[1] and _folds_beyond_ascii(parts[0]):
        prepare(unicode="u" in parts[1])


def _folds_beyond_ascii(pattern: str) -> bool:
    """Might translating ``pattern`` with ``i`` read the case tables (a class, a non-ASCII
    character, an escape other than ``\\b``, ``\\B`` or of ASCII punctuation)?"""
    if not pattern.isascii() or "[" in pattern:
        return True
    escapes = pattern.split("\\")[1:]
    return any(e[:1].isalnum() and e[:1] not in "bB" for e in escapes)


@functools.lru_cache(maxsize=CACHE_SIZE)
def regex_key(key: str) -> RegexKey | None:
    """Compile a trimmed key if SillyTavern treats it as a regex (R22), else ``None``.

    Args:
        key: the key after macro substitution and JavaScript ``trim()``.

    Returns:
        The compiled key, or ``None`` when it is a plain key: the rule refuses it or V8
        would throw on ``new RegExp`` (repeated flags, syntax errors). Cached per key. A
        key too large to compile in bounded time and memory (``MAX_PATTERN``,
        ``MAX_BRANCHES``, ``MAX_TRANSLATED``) is a ``RegexKey`` whose every test raises
        ``RegexTimeout`` (``refused``), without being parsed or compiled.
    """
    parts = split_key(key)
    if parts is None:
        return None
    pattern, flags = parts
    if len(set(flags)) != len(flags):
        return None
    if len(pattern) > MAX_PATTERN:
        return _refused(
            key, pattern, flags, f"refused: pattern longer than {MAX_PATTERN} characters"
        )
    if pattern.count("|") >= MAX_BRANCHES:
        return _refused(key, pattern, flags, f"refused: more than {MAX_BRANCHES} alternatives")
    try:
        tr = translate(pattern, flags)
    except JSSyntaxError as exc:
        log.debug("regex key %r is plain text: %s", key, exc)
        return None
    except RecursionError:  # V8 nests deeper; keys this deep are treated as plain text
        log.warning("regex key %s nests too deeply; used as plain text", shown(key))
        return None
    if len(tr.pattern) > MAX_TRANSLATED:
        return _refused(key, pattern, flags, "refused: too large once translated")
    compiled: _Compiled
    if compiles_surely(tr.pattern):  # compiled on its first test (start-up time)
        compiled = _Deferred(tr.pattern, key)
    else:
        import regex  # type: ignore[import-untyped,unused-ignore]

        try:
            compiled = regex.compile(tr.pattern, regex.V0)
        except (regex.error, RecursionError, MemoryError, OverflowError) as exc:
            log.warning("regex key %s accepted by V8 rules but not by regex: %s", shown(key), exc)
            return None
    return RegexKey(
        source=pattern,
        flags=flags,
        key=key,
        compiled=compiled,
        exact_below=tr.exact_below,
        anchored=tr.anchored,
        needles=tr.needles,
        line_local=tr.line_local,
    )


class _Deferred:
    """A translation ``regex`` is sure to compile (``sure.compiles_surely``), compiled on
    its first ``search`` or ``match``: until then ``regex`` need not even be imported."""

    __slots__ = ("_compiled", "key", "pattern")

    def __init__(self, pattern: str, key: str) -> None:
        self.pattern, self.key = pattern, key
        self._compiled: _Compiled | None = None

    def _get(self) -> _Compiled:
        compiled = self._compiled
        if compiled is None:
            import regex  # type: ignore[import-untyped,unused-ignore]

            try:
                compiled = self._compiled = regex.compile(self.pattern, regex.V0)
            except (regex.error, RecursionError, MemoryError, OverflowError) as exc:
                # compiles_surely said it would: a fault of that grammar, reported, no match
                raise RegexTimeout(self.key, f"not compiled by regex: {exc}") from None
        return compiled

    def search(self, string: str, *, timeout: float) -> object | None:
        """``regex.Pattern.search``, compiling the pattern first if needed."""
        return self._get().search(string, timeout=timeout)

    def match(self, string: str, *, timeout: float) -> object | None:
        """``regex.Pattern.match``, compiling the pattern first if needed."""
        return self._get().match(string, timeout=timeout)


_NEVER = _Deferred("(?!)", "")
"""The compiled form of a refused key (never compiled: ``RegexKey.test`` raises first)."""


def _refused(key: str, pattern: str, flags: str, reason: str) -> RegexKey:
    log.debug("regex key %s %s", shown(key), reason)
    return RegexKey(source=pattern, flags=flags, key=key, compiled=_NEVER, refused=reason)


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


@functools.lru_cache(maxsize=8)
def _utf16_units(s: str) -> str:
    """``s`` with every astral character split into its two surrogate code units.

    Cached for the few scan texts of one scan: every non-``u`` key tests the same text.
    """
    if s.isascii() or max(s) < "\U00010000":
        return s
    return _ASTRAL.sub(lambda m: _pair(ord(m.group(0))), s)


def _pair(cp: int) -> str:
    cp -= 0x10000
    return chr(0xD800 + (cp >> 10)) + chr(0xDC00 + (cp & 0x3FF))
