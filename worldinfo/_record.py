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
    from typing import Any, TypeVar, dataclass_transform, overload

    T = TypeVar("T")

_OWN = ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__")
_STATE = ("__getstate__", "__setstate__")
_FACTORY = dataclasses._HAS_DEFAULT_FACTORY  # type: ignore[attr-defined]
_MISSING = dataclasses.MISSING
_PROTOS: dict[tuple[bool, bool], Any] = {}


def _params(*, frozen: bool, kw_only: bool) -> object:
    """The ``__dataclass_params__`` of a slotted dataclass with these options."""
    proto = _PROTOS.get((frozen, kw_only))
    if proto is None:  # one real dataclass per kind, made on first use, lends its parameters
        donor: Any = type("Proto", (), {"__doc__": "A parameter donor."})
        proto = dataclasses.dataclass(donor, frozen=frozen, slots=True, kw_only=kw_only)
        _PROTOS[frozen, kw_only] = proto
    return proto.__dataclass_params__


def _frozen_setattr(_self: object, name: str, _value: object) -> None:
    raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(_self: object, name: str) -> None:
    raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")


def _getstate(self: object) -> list[object]:
    return [getattr(self, f.name) for f in dataclasses.fields(self)]  # type: ignore[arg-type]


def _setstate(self: object, state: list[object]) -> None:
    for f, value in zip(dataclasses.fields(self), state, strict=False):  # type: ignore[arg-type]
        object.__setattr__(self, f.name, value)


def _plain(cls: type, *, kw_only: bool = True) -> bool:
    """Whether ``record`` makes exactly what ``dataclasses`` would of ``cls``."""
    if cls.__bases__ != (object,) or cls.__doc__ is None or "__slots__" in cls.__dict__:
        return False
    if any(name in cls.__dict__ for name in (*_OWN, *_STATE)):
        return False
    defaulted = False
    for name, note in inspect.get_annotations(cls).items():
        text = note if isinstance(note, str) else getattr(note, "__name__", "")
        if "InitVar" in text or "KW_ONLY" in text or "ClassVar" in text:
            return False
        value = cls.__dict__.get(name, _MISSING)
        if isinstance(value, dataclasses.Field):
            if value.kw_only not in (_MISSING, kw_only) or value.hash is not None:
                return False
            if value.init is False:
                continue
            value = value.default if value.default_factory is _MISSING else value.default_factory
        if not kw_only and defaulted and value is _MISSING:
            return False  # dataclasses says: non-default argument follows default argument
        defaulted = defaulted or value is not _MISSING
    return True


def _source(
    cls: type, fields: list[dataclasses.Field[object]], *, frozen: bool, kw_only: bool
) -> tuple[str, dict[str, object]]:
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
        if value is None:
            continue
        if frozen:
            body.append(f"  __dataclass_builtins_object__.__setattr__(self,{f.name!r},{value})")
        else:
            body.append(f"  self.{f.name}={value}")
    if hasattr(cls, "__post_init__"):
        body.append("  self.__post_init__()")
    star = "*, " if params and kw_only else ""
    init = f" def __init__(self, {star}{', '.join(params)}) -> None:"
    text = "\n".join([init, *(body or ["  pass"])])
    return f"def __create_fn__({', '.join(names)}):\n{text}\n return locals()", names


def _compiled(text: str, names: dict[str, object]) -> dict[str, Any]:
    scope: dict[str, Any] = {}
    code = compile(text, "<string>", "exec", dont_inherit=True)  # no future annotations
    exec(code, {}, scope)  # noqa: S102 - the text is made here from field names only
    made: dict[str, Any] = scope["__create_fn__"](**names)
    return made


def _compare(made: Any, fields: list[dataclasses.Field[object]], *, frozen: bool) -> None:
    """``__eq__`` (and ``__hash__`` when frozen) as dataclasses writes them, compiled on the
    first comparison: most classes of a scan are never compared or hashed (start-up time)."""
    mine = "".join(f"self.{f.name}," for f in fields if f.compare)
    theirs = "".join(f"other.{f.name}," for f in fields if f.compare)
    lines = [
        " def __eq__(self, other):",
        "  if other.__class__ is self.__class__:",
        f"   return ({mine})==({theirs})",
        "  return NotImplemented",
    ]
    if frozen:
        lines += [" def __hash__(self):", f"  return hash(({mine}))"]
    text = "def __create_fn__():\n" + "\n".join(lines) + "\n return locals()"
    done: list[bool] = []

    def install() -> None:
        if not done:
            for name, fn in _compiled(text, {}).items():
                fn.__qualname__ = f"{made.__qualname__}.{name}"
                setattr(made, name, fn)
            done.append(True)

    def __eq__(self: object, other: object) -> bool:
        install()
        return made.__eq__(self, other)  # type: ignore[no-any-return]

    def __hash__(self: object) -> int:
        install()
        return made.__hash__(self)  # type: ignore[no-any-return]

    made.__eq__ = __eq__
    made.__hash__ = __hash__ if frozen else None  # eq, not frozen: unhashable (dataclasses)


def _repr(fields: list[dataclasses.Field[object]]) -> Callable[[object], str]:
    """``__repr__`` as dataclasses writes it (not compiled: a repr is never on a hot path)."""
    shown = tuple(f.name for f in fields if f.repr)

    @reprlib.recursive_repr()
    def __repr__(self: object) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in shown)
        return f"{self.__class__.__qualname__}({inner})"

    return __repr__


def _make(cls: type, *, frozen: bool, kw_only: bool) -> type:
    if not _plain(cls, kw_only=kw_only):
        return dataclasses.dataclass(frozen=frozen, slots=True, kw_only=kw_only)(cls)
    made: Any = dataclasses.dataclass(
        slots=True, kw_only=kw_only, init=False, repr=False, eq=False
    )(cls)
    fields = list(dataclasses.fields(made))
    methods = {**_compiled(*_source(made, fields, frozen=frozen, kw_only=kw_only))}
    methods["__repr__"] = _repr(fields)
    if frozen:
        methods |= {"__setattr__": _frozen_setattr, "__delattr__": _frozen_delattr}
        methods |= {"__getstate__": _getstate, "__setstate__": _setstate}
    for name in (*_OWN, *_STATE):
        if name in methods:
            if name in _OWN[:2]:
                methods[name].__qualname__ = f"{made.__qualname__}.{name}"
            setattr(made, name, methods[name])
    _compare(made, fields, frozen=frozen)
    made.__dataclass_params__ = _params(frozen=frozen, kw_only=kw_only)
    return made  # type: ignore[no-any-return]


def _record(
    cls: type | None = None, /, *, frozen: bool = True, kw_only: bool = True
) -> type | Callable[[type], type]:
    if cls is None:
        return lambda c: _make(c, frozen=frozen, kw_only=kw_only)
    return _make(cls, frozen=frozen, kw_only=kw_only)


if TYPE_CHECKING:

    @overload
    def record(cls: type[T], /) -> type[T]: ...

    @overload
    def record(*, frozen: bool = True, kw_only: bool = True) -> Callable[[type[T]], type[T]]: ...

    @dataclass_transform(
        frozen_default=True, kw_only_default=True, field_specifiers=(dataclasses.field,)
    )
    def record(
        cls: type[T] | None = None, /, *, frozen: bool = True, kw_only: bool = True
    ) -> type[T] | Callable[[type[T]], type[T]]:
        """A slotted dataclass: frozen and keyword-only unless told otherwise."""

else:
    record = _record
