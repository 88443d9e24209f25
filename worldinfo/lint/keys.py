"""Lint checks on keys (R22-R26, R31-R32): keys that never or always fire, impossible logic."""

from __future__ import annotations

from worldinfo import _js
from worldinfo._js import JSONValue
from worldinfo._js.regex import regex_key
from worldinfo._record import record
from worldinfo.lint.model import Finding, LintOptions, Located
from worldinfo.lint.regex import diagnose
from worldinfo.lint.words import COMMON_WORDS, NAME_MACROS

_LOGIC = {0: "AND ANY", 1: "NOT ALL", 2: "NOT ANY", 3: "AND ALL"}
_ALWAYS_REPORTED = frozenset({"WI010", "WI011", "WI012"})
"""Key findings that still matter for constant and ``@@activate`` entries."""


@record(kw_only=False)
class _Ctx:
    """The entry being checked and the options it is judged against."""

    e: Located
    options: LintOptions

    @property
    def case_fold(self) -> bool:
        """Keys and text are lower-cased (``caseSensitive ?? global`` is falsy)."""
        cs = _js.coalesce(self.e.get("caseSensitive"), self.options.settings.case_sensitive)
        return not _js.truthy(cs)

    @property
    def whole_words(self) -> bool:
        """``matchWholeWords ?? global`` is truthy."""
        ww = _js.coalesce(self.e.get("matchWholeWords"), self.options.settings.match_whole_words)
        return _js.truthy(ww)

    def fold(self, text: str) -> str:
        """``text`` as plain-key matching compares it."""
        return _js.lower(text) if self.case_fold else text

    def implies(self, p: _Key, s: _Key) -> bool:
        """A match of plain key ``p`` guarantees a match of plain key ``s``."""
        if p.kind != "plain" or s.kind != "plain":
            return False
        fp, fs = self.fold(p.text), self.fold(s.text)
        if self.whole_words and len(_js.split_ws(fs)) <= 1:
            return fp == fs
        return fs in fp


@record
class _Key:
    """One key and what lint could tell about it."""

    raw: JSONValue
    text: str  # trimmed
    kind: str  # empty | always | never | regex | macro | plain
    index: int


def check_entry(e: Located, options: LintOptions) -> list[Finding]:
    """Every key finding of one enabled entry."""
    out: list[Finding] = []
    ctx = _Ctx(e, options)
    keys_field = e.get("key")
    primary = _keys(ctx, "key", out=out)
    secondary = _keys(ctx, "keysecondary", out=out)
    self_activating = _js.truthy(e.get("constant")) or _activates_by_decorator(e)
    if self_activating:  # keys do not decide; only broken or dangerous regexes matter
        out = [f for f in out if f.code in _ALWAYS_REPORTED]
    if not self_activating and not _js.truthy(e.get("vectorized")):
        if not isinstance(keys_field, list) or not keys_field:
            out.append(
                e.finding(
                    "WI020",
                    "key",
                    message="no primary keys and not constant: the entry never activates on its own "
                    "(only @@activate or an external source such as vectors can turn it on)",
                )
            )
        elif not any(k.kind not in ("empty", "never") for k in primary):
            out.append(
                e.finding("WI020", "key", message="every primary key is empty or can never match")
            )
    if not self_activating:
        out += _redundant(ctx, primary)
        out += _secondary_logic(ctx, primary, secondary=secondary)
    return out


def _activates_by_decorator(e: Located) -> bool:
    content = e.get("content")
    if not isinstance(content, str) or not content.startswith("@@"):
        return False
    return any(line in ("@@activate", "@@@activate") for line in content.split("\n"))


def _keys(ctx: _Ctx, field: str, *, out: list[Finding]) -> list[_Key]:
    e, options = ctx.e, ctx.options
    raw = e.get(field)
    if not isinstance(raw, list):
        return []
    keys = []
    for i, k in enumerate(raw):
        path = f"{field}.{i}"
        if not isinstance(k, str):
            keys.append(_Key(raw=k, text=_js.to_string(k), kind="plain", index=i))
            continue
        text = _js.trim(k)
        kind = "plain"
        if k == "":
            kind = "empty"
            out.append(e.finding("WI001", path, message="an empty key never matches"))
        elif text == "":
            kind = "always"
            out.append(
                e.finding(
                    "WI002",
                    path,
                    message=f"the key {k!r} is only whitespace: SillyTavern trims it to '' and then "
                    "it matches every scan text (Q8)",
                )
            )
        else:
            found = diagnose(text, timeout=options.regex_timeout)
            for code, message in found:
                out.append(e.finding(code, path, message=f"{text!r}: {message}"))
            codes = {c for c, _ in found}
            if "WI012" in codes:
                kind = "never"
            elif "WI013" in codes:
                kind = "always"
            elif regex_key(text) is not None:
                kind = "regex"
            else:
                kind = _plain_kind(ctx, text, path=path, out=out)
        keys.append(_Key(raw=k, text=text, kind=kind, index=i))
    return keys


def _plain_kind(ctx: _Ctx, text: str, *, path: str, out: list[Finding]) -> str:
    """Check a plain (non-regex) key; return its kind, ``macro`` or ``plain``."""
    e, options = ctx.e, ctx.options
    low = _js.lower(text)
    if low in NAME_MACROS:
        if _js.truthy(options.settings.include_names):
            out.append(
                e.finding(
                    "WI003",
                    path,
                    message=f"{text!r} becomes a speaker name, and with include-names on every scanned "
                    "message starts with its speaker's name: it fires on almost every turn",
                )
            )
        return "macro"
    if "{{" in text or "<" in text:
        return "macro"
    folded = ctx.fold(text)
    if folded in COMMON_WORDS or low in COMMON_WORDS:
        out.append(
            e.finding(
                "WI003", path, message=f"{text!r} is a very common word: it fires on most messages"
            )
        )
    elif text.isascii() and len(text) <= 2 and not ctx.whole_words:
        out.append(
            e.finding(
                "WI004",
                path,
                message=f"{text!r} is matched as a substring (whole-word matching is off): it fires "
                "inside any word containing it",
            )
        )
    return "plain"


def _redundant(ctx: _Ctx, primary: list[_Key]) -> list[Finding]:
    out = []
    for b in primary:
        for a in primary:
            if a.index == b.index or not ctx.implies(b, a):
                continue
            if ctx.fold(a.text) == ctx.fold(b.text) and a.index > b.index:
                continue
            mode = "whole-word" if ctx.whole_words else "substring"
            out.append(
                ctx.e.finding(
                    "WI005",
                    f"key.{b.index}",
                    message=f"{b.text!r} is redundant ({mode} matching): {a.text!r} already matches "
                    f"wherever {b.text!r} does",
                )
            )
            break
    return out


def _secondary_logic(ctx: _Ctx, primary: list[_Key], *, secondary: list[_Key]) -> list[Finding]:
    e = ctx.e
    raw = e.get("keysecondary")
    if not isinstance(raw, list) or not raw:
        return []
    if not _js.truthy(e.get("selective")):
        return [
            e.finding(
                "WI023",
                "keysecondary",
                message="secondary keys are ignored because 'selective' is off",
            )
        ]
    logic = _js.coalesce(e.get("selectiveLogic"), 0)
    if not any(_js.strict_eq(logic, n) for n in _LOGIC):
        return [
            e.finding(
                "WI021",
                "selectiveLogic",
                message=f"selectiveLogic {_js.stringify(logic)} is not one of the numbers 0-3: the "
                "secondary-key check is always false and the entry never activates by keys (Q11)",
            )
        ]
    name = _LOGIC[int(_js.to_number(logic))]
    why = _impossible(ctx, logic=int(_js.to_number(logic)), primary=primary, secondary=secondary)
    if not why:
        return []
    return [
        e.finding(
            "WI022", "keysecondary", message=f"{name}: {why}; the entry never activates by keys"
        )
    ]


def _impossible(
    ctx: _Ctx,
    *,
    logic: int,
    primary: list[_Key],
    secondary: list[_Key],
) -> str:
    kinds = [s.kind for s in secondary]
    usable = [p for p in primary if p.kind not in ("empty", "never")]
    if logic == 0 and all(k in ("empty", "never") for k in kinds):
        return "every secondary key is empty or can never match"
    if logic == 3 and any(k in ("empty", "never") for k in kinds):
        return "a secondary key is empty or can never match, so they can never all match"
    if logic == 2 and any(k == "always" for k in kinds):
        return "a secondary key always matches, so 'none matches' never holds"
    if logic == 1 and all(k == "always" for k in kinds):
        return "every secondary key always matches"
    if not usable:
        return ""
    if logic == 2 and all(any(ctx.implies(p, s) for s in secondary) for p in usable):
        return "whichever primary key matches, a secondary key it contains matches too"
    if logic == 1 and all(ctx.implies(p, s) for p in usable for s in secondary):
        return "every primary key contains every secondary key, so they all match together"
    return ""
