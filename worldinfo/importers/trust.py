"""Neutralising, at import, what an untrusted lorebook could use to force itself into every prompt.

The engine is the authority (``worldinfo.trust``): it refuses an untrusted entry's keys after
macro substitution at scan time and strips its field powers when it loads it, whatever is
stored. This module is the first line: with ``trust=False`` every imported entry is stored
already rewritten by the same ``TrustPolicy``, so an exported book carries no power the
policy denies:

1. ``trust.restrict``: truthy ``constant`` becomes ``false``; ``@@activate`` /
   ``@@@activate`` decorator lines (the decorator block at the very start of ``content``)
   become ``@@untrusted_activate`` / ``@@@untrusted_activate`` (still stripped from the
   prompt, no effect; ``@@dont_activate`` is kept); ``sticky`` becomes ``null``; truthy
   ``ignoreBudget`` becomes ``false``; a system-role entry at depth 0 gets the user role.
2. Keys the policy refuses are dropped from ``key`` and ``keysecondary`` as stored (regex
   keys per SillyTavern's rule, ``split_key``; keys that match almost any text), so no
   pattern from the file is ever compiled. An entry left with no primary keys can then only
   be activated from outside (a front-end). A dropped exclusion key (NOT_ANY / NOT_ALL
   logic) no longer excludes anything.

Each entry's ``Origin.trusted`` is ``False``. An entry stored with
``extensions.worldinfo_origin.trusted == false`` (exported from an untrusted import) is
treated so even when the file is loaded with ``trust=True``.
"""

from __future__ import annotations

from worldinfo import TrustPolicy
from worldinfo.interchange import DEFAULT_TRUST, JSONValue, key_refusal, restrict, split_key, trim


def is_regex_key(key: JSONValue) -> bool:
    """True when SillyTavern's rule reads ``key`` (trimmed) as ``/pattern/flags`` (R22)."""
    return isinstance(key, str) and split_key(trim(key)) is not None


def _refused(key: JSONValue, policy: TrustPolicy) -> bool:
    return isinstance(key, str) and key_refusal(key, policy) is not None


def neutralise(
    data: dict[str, JSONValue], policy: TrustPolicy = DEFAULT_TRUST
) -> dict[str, JSONValue]:
    """Return a copy of one entry object with the rules above applied under ``policy``."""
    out = restrict(data, policy)
    for field in ("key", "keysecondary"):
        keys = out.get(field)
        if isinstance(keys, list):
            out[field] = [k for k in keys if not _refused(k, policy)]
        elif _refused(keys, policy):
            out[field] = []
    return out
