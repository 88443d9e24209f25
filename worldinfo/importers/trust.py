"""Neutralising what an untrusted lorebook could use to force itself into every prompt.

With ``trust=False`` every imported entry is rewritten as follows (and nothing else):

1. ``constant`` is set to ``false`` when it is truthy (the entry then needs its keys).
2. Regex keys are removed: every string in ``key`` and ``keysecondary`` that SillyTavern's
   rule reads as a regular expression once trimmed (``/pattern/flags``: pattern non-empty,
   inner ``/`` escaped, flags from ``gimsuy``; the engine's own ``split_key``) is dropped,
   so no pattern from the file is ever compiled. An entry left with no primary keys can
   then only be activated from outside (a front-end, sticky).
   A dropped exclusion key (NOT_ANY / NOT_ALL logic) no longer excludes anything.
3. Activation decorators are disarmed: in the decorator block at the very start of
   ``content`` (lines beginning with ``@@``), a line whose decorator name is ``activate``
   (``@@activate`` or the fallback form ``@@@activate``, with any trailing text) is
   rewritten to ``@@untrusted_activate`` / ``@@@untrusted_activate``. The engine strips
   decorator lines from the prompt text either way, so the visible content is unchanged;
   the rewritten name is unknown, so it has no effect. ``@@dont_activate`` is kept.

Each entry's ``Origin.trusted`` is ``False``. With ``trust=True`` (the default) entries are
kept exactly as converted.
"""

from __future__ import annotations

import re

from worldinfo._js import JSONValue, trim, truthy
from worldinfo._jsregex import split_key

_ACTIVATE = re.compile(r"^(@@@?)activate(?=$|[\s\r])")


def is_regex_key(key: JSONValue) -> bool:
    """True when SillyTavern's rule reads ``key`` (trimmed) as ``/pattern/flags`` (R22)."""
    return isinstance(key, str) and split_key(trim(key)) is not None


def _disarm(content: str) -> str:
    if not content.startswith("@@"):
        return content
    lines = content.split("\n")
    for i, line in enumerate(lines):
        if not line.startswith("@@"):
            break
        lines[i] = _ACTIVATE.sub(r"\1untrusted_activate", line)
    return "\n".join(lines)


def neutralise(data: dict[str, JSONValue]) -> dict[str, JSONValue]:
    """Return a copy of one entry object with the three rules above applied."""
    out = dict(data)
    if truthy(out.get("constant")):
        out["constant"] = False
    for field in ("key", "keysecondary"):
        keys = out.get(field)
        if isinstance(keys, list):
            out[field] = [k for k in keys if not is_regex_key(k)]
        elif is_regex_key(keys):
            out[field] = []
    content = out.get("content")
    if isinstance(content, str):
        out["content"] = _disarm(content)
    return out
