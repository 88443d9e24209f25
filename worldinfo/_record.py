"""``record``: ``@dataclass(frozen=True, slots=True, kw_only=True)``, made in half the time.

Python 3.11's ``dataclasses`` compiles each generated method from its own source text, six
``exec`` calls per frozen class, about 1 ms a class: with the 60-odd value classes a
``worldinfo scan`` imports that was a third of its start-up. ``record`` lets ``dataclasses``
do everything but the code: it collects the fields (``fields``, ``replace``, ``asdict`` and
``is_dataclass`` work as always), makes the slotted class and ``__match_args__``; the
``__init__``, ``__eq__`` and ``__hash__`` it would write are written here, from the same
text, in one ``exec`` per class; ``__repr__`` (a closure: never on a hot path),
``__setattr__``, ``__delattr__``, ``__getstate__`` and ``__setstate__`` (frozen, slotted,
picklable) need none.

Anything this module does not reproduce exactly (a base class, an ``InitVar``, a field
without keyword-only, an explicit ``hash=``, a method of those names written in the class,
no docstring) goes to ``dataclasses`` itself. ``tests/test_record.py`` checks every class
of the package against what ``dataclasses`` makes of it.
"""

from __future__ import annotations

import dataclasses
import inspect  # dataclasses imports it anyway
import reprlib

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar, dataclass_transform

    T = TypeVar("T")

_OWN = ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__")
_STATE = ("__getstate__", "__setstate__")
_FACTORY = dataclasses._HAS_DEFAULT_FACTORY  # type: ignore[attr-defined]
_MISSING = dataclasses.MISSING
_PROTO: Any = None


def _params() -> object:
    """The ``__dataclass_params__`` of a frozen, slotted, keyword-only dataclass."""
    global _PROTO  # one real dataclass, made on first use, lends its parameters
    if _PROTO is None:

        @dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
        class Proto:
            """A parameter donor."""

        _PROTO = Proto
    return _PROTO.__dataclass_params__


def _frozen_setattr(_self: object, name: str, _value: object) -> None:
    raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(_self: object, name: str) -> None:
    raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")


def _getstate(self: object) -> list[object]:
    return [getattr(self, f.name) for f in dataclasses.fields(self)]  # type: ignore[arg-type]


def _setstate(self: object, state: list[object]) -> None:
    for f, value in zip(dataclasses.fields(self), state, strict=False):  # type: ignore[arg-type]
        object.__setattr__(self, f.name, value)


def _plain(cls: type) -> bool:
    """Whether ``record`` makes exactly what ``dataclasses`` would of ``cls``."""
    if cls.__bases__ != (object,) or cls.__doc__ is None or "__slots__" in cls.__dict__:
        return False
    if any(name in cls.__dict__ for name in (*_OWN, *_STATE)):
        return False
    notes = inspect.get_annotations(cls)
    for name, note in notes.items():
        text = note if isinstance(note, str) else getattr(note, "__name__", "")
        if "InitVar" in text or "KW_ONLY" in text:
            return False
        value = cls.__dict__.get(name)
        if isinstance(value, dataclasses.Field) and (
            value.kw_only is False or value.hash is not None
        ):
            return False
    return True


def _source(cls: type, fields: list[dataclasses.Field[object]]) -> tuple[str, dict[str, object]]:
    """The methods' text (as ``dataclasses`` writes it) and the names it refers to."""
    names: dict[str, object] = {"__dataclass_builtins_object__": object, "_FACTORY": _FACTORY}
    params, body = [], []
    for f in fields:
        dflt = f"__dataclass_dflt_{f.name}__"
        names[f"__dataclass_type_{f.name}__"] = f.type
        factory = f.default_factory is not _MISSING
        if factory:
            names[dflt] = f.default_factory
        elif f.default is not _MISSING:
            names[dflt] = f.default
        value: str | None
        if f.init:
            default = "=_FACTORY" if factory else f"={dflt}" if dflt in names else ""
            params.append(f"{f.name}:__dataclass_type_{f.name}__{default}")
            value = f"{dflt}() if {f.name} is _FACTORY else {f.name}" if factory else f.name
        else:  # set here when it has a default (slotted: no class attribute holds it)
            value = f"{dflt}()" if factory else dflt if dflt in names else None
        if value is not None:
            body.append(f"  __dataclass_builtins_object__.__setattr__(self,{f.name!r},{value})")
    if hasattr(cls, "__post_init__"):
        body.append("  self.__post_init__()")
    star = "*, " if params else ""
    mine = "".join(f"self.{f.name}," for f in fields if f.compare)
    theirs = "".join(f"other.{f.name}," for f in fields if f.compare)
    text = "\n".join(
        [
            f" def __init__(self, {star}{', '.join(params)}) -> None:",
            *(body or ["  pass"]),
            " def __eq__(self, other):",
            "  if other.__class__ is self.__class__:",
            f"   return ({mine})==({theirs})",
            "  return NotImplemented",
            " def __hash__(self):",
            f"  return hash(({mine}))",
        ]
    )
    return f"def __create_fn__({', '.join(names)}):\n{text}\n return locals()", names


def _repr(fields: list[dataclasses.Field[object]]) -> Callable[[object], str]:
    """``__repr__`` as dataclasses writes it (not compiled: a repr is never on a hot path)."""
    shown = tuple(f.name for f in fields if f.repr)

    @reprlib.recursive_repr()
    def __repr__(self: object) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in shown)
        return f"{self.__class__.__qualname__}({inner})"

    return __repr__


def _record(cls: type) -> type:
    if not _plain(cls):
        return dataclasses.dataclass(frozen=True, slots=True, kw_only=True)(cls)
    made: Any = dataclasses.dataclass(slots=True, kw_only=True, init=False, repr=False, eq=False)(
        cls
    )
    fields = list(dataclasses.fields(made))
    text, names = _source(made, fields)
    scope: dict[str, Any] = {}
    code = compile(text, "<string>", "exec", dont_inherit=True)  # no future annotations
    exec(code, {}, scope)  # noqa: S102 - the text is made above from field names only
    methods = {**scope["__create_fn__"](**names), "__repr__": _repr(fields)}
    methods |= {"__setattr__": _frozen_setattr, "__delattr__": _frozen_delattr}
    methods |= {"__getstate__": _getstate, "__setstate__": _setstate}
    for name in (*_OWN, *_STATE):
        fn = methods[name]
        if name in _OWN[:4]:
            fn.__qualname__ = f"{made.__qualname__}.{name}"
        setattr(made, name, fn)
    made.__dataclass_params__ = _params()
    return made  # type: ignore[no-any-return]


if TYPE_CHECKING:

    @dataclass_transform(
        frozen_default=True, kw_only_default=True, field_specifiers=(dataclasses.field,)
    )
    def record(cls: type[T]) -> type[T]:
        """Make ``cls`` a frozen, slotted, keyword-only dataclass."""

else:
    record = _record
