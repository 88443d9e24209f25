"""The public toolkit for code that reads or writes lorebook files (a public module).

``worldinfo.importers`` is built on this module and on the names ``worldinfo`` itself
exports, and on nothing else of the package; an importer or exporter of your own can be
too. It gathers, from the private modules that define them:

* JSON values as SillyTavern's JavaScript reads and writes them: ``JSONValue`` (the JSON
  boundary's ``Any``), ``UNDEFINED``, the coercions ``to_string``, ``to_number``,
  ``truthy``, ``nullish``, ``coalesce`` and ``trim`` (JavaScript's white-space set);
  ``parse_json`` with its size and depth ``JSONBounds`` (``DEFAULT_JSON_BOUNDS``,
  ``check_json_bounds``, ``JSONLimitError``); ``stringify`` (``JSON.stringify``),
  ``canonical`` and ``js_key_order`` (property order as JavaScript enumerates it);
* SillyTavern's entry: ``ENTRY_TEMPLATE`` (the default of every field, in template order)
  and ``split_key`` (the rule that reads a key as ``/pattern/flags``);
* provenance and trust: ``ORIGIN_FIELD`` and ``origin_mark`` (the
  ``extensions.worldinfo_origin`` mark an exported entry carries), ``marked_untrusted``,
  ``is_untrusted``, ``DEFAULT_TRUST``, and the two rules of ``TrustPolicy`` that an importer
  applies ahead of the engine: ``restrict`` (field powers) and ``key_refusal`` (keys).

Names here are public: they keep their meaning across releases like those of ``worldinfo``.
"""

from __future__ import annotations

from worldinfo._js import (
    DEFAULT_JSON_BOUNDS,
    UNDEFINED,
    JSONBounds,
    JSONLimitError,
    JSONValue,
    canonical,
    check_json_bounds,
    coalesce,
    js_key_order,
    nullish,
    parse_json,
    stringify,
    to_number,
    to_string,
    trim,
    truthy,
)
from worldinfo._js.regex import split_key
from worldinfo.trust import (
    DEFAULT_TRUST,
    ORIGIN_FIELD,
    is_untrusted,
    key_refusal,
    marked_untrusted,
    origin_mark,
    restrict,
)
from worldinfo.types import ENTRY_TEMPLATE

__all__ = [
    "DEFAULT_JSON_BOUNDS",
    "DEFAULT_TRUST",
    "ENTRY_TEMPLATE",
    "ORIGIN_FIELD",
    "UNDEFINED",
    "JSONBounds",
    "JSONLimitError",
    "JSONValue",
    "canonical",
    "check_json_bounds",
    "coalesce",
    "is_untrusted",
    "js_key_order",
    "key_refusal",
    "marked_untrusted",
    "nullish",
    "origin_mark",
    "parse_json",
    "restrict",
    "split_key",
    "stringify",
    "to_number",
    "to_string",
    "trim",
    "truthy",
]
