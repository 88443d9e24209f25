"""JavaScript semantics the engine depends on, and nothing else.

Every place where SillyTavern's behaviour follows from a JavaScript language rule (UTF-16
string lengths, loose truthiness, ``ToNumber``, ``trim``, ``Math.round``, ``JSON.stringify``,
object key order, the ``cyrb53`` string hash, ``mulberry32``) calls a helper from this
package: ``values`` (undefined, truthiness, coercions, operators), ``strings``, ``objects``
(key order, JSON, stable sort), ``bounds`` (size limits checked before ``JSON.parse``) and
``hashing``. Regex keys are ``worldinfo._js.regex``.
"""

from __future__ import annotations

from worldinfo._js.bounds import (
    DEFAULT_JSON_BOUNDS,
    JSONBounds,
    JSONLimitError,
    check_json_bounds,
)
from worldinfo._js.hashing import (
    mulberry32,
    st_token_estimate,
    st_tokens_for_length,
    string_hash,
    string_hashes,
)
from worldinfo._js.objects import (
    canonical,
    in_js_order,
    is_array_index,
    js_key_order,
    parse_json,
    reorder,
    sort_desc_by_order,
    stringify,
)
from worldinfo._js.strings import (
    JS_WHITESPACE,
    JS_WS_CLASS,
    escape_regex,
    lower,
    split_group,
    split_ws,
    to_utf16_units,
    trim,
    utf16_len,
)
from worldinfo._js.values import (
    UNDEFINED,
    JSError,
    JSONValue,
    Undefined,
    add,
    coalesce,
    format_number,
    ge,
    get_path,
    gt,
    js_round,
    le,
    loose_eq_true,
    lt,
    nullish,
    number_value,
    strict_eq,
    to_number,
    to_string,
    to_strings,
    truthy,
    type_name,
)

__all__ = [
    "DEFAULT_JSON_BOUNDS",
    "JS_WHITESPACE",
    "JS_WS_CLASS",
    "UNDEFINED",
    "JSError",
    "JSONBounds",
    "JSONLimitError",
    "JSONValue",
    "Undefined",
    "add",
    "canonical",
    "check_json_bounds",
    "coalesce",
    "escape_regex",
    "format_number",
    "ge",
    "get_path",
    "gt",
    "in_js_order",
    "is_array_index",
    "js_key_order",
    "js_round",
    "le",
    "loose_eq_true",
    "lower",
    "lt",
    "mulberry32",
    "nullish",
    "number_value",
    "parse_json",
    "reorder",
    "sort_desc_by_order",
    "split_group",
    "split_ws",
    "st_token_estimate",
    "st_tokens_for_length",
    "strict_eq",
    "string_hash",
    "string_hashes",
    "stringify",
    "to_number",
    "to_string",
    "to_strings",
    "to_utf16_units",
    "trim",
    "truthy",
    "type_name",
    "utf16_len",
]
