r"""``record``: ``@dataclass(frozen=True, slots=True, kw_only=True)``, made without ``dataclasses``.

Python 3.11's ``dataclasses`` costs a scan's start-up twice: its import (``inspect``,
``ast``, ``dis``, ``tokenize``: about 20 ms) and its class processing (about 0.5 ms a class,
compiling each generated method from its own text). ``record`` makes the same slotted class
itself: the fields are read from the annotations and the class body (``field`` here is
``dataclasses.field`` for type checkers and a plain holder of its arguments at run time),
``__init__`` comes from one compiled template per shape of fields (``_record.methods``),
``__eq__``/``__hash__`` are compiled on a class's first comparison, ``__repr__`` and the
frozen methods need no compiling. ``__dataclass_fields__`` and ``__dataclass_params__`` are
built (importing ``dataclasses``) the first time something asks for them, so ``fields``,
``replace``, ``asdict`` and ``is_dataclass`` work as always; ``replace`` here does what
``dataclasses.replace`` does, and ``field_names`` lists the fields, without that import.

Anything this module does not reproduce exactly (a base class, an ``InitVar``, a
``ClassVar``, a field without keyword-only, an explicit ``hash=``, a mutable default, a
method of those names written in the class, no docstring) goes to ``dataclasses`` itself.
``tests/test_record.py`` checks every class of the package against what ``dataclasses``
makes of it.
"""

from __future__ import annotations

import reprlib
import sys

from worldinfo._record.methods import (
    _OPTIONS,
    FACTORY,
    MISSING,
    LazyInit,
    Spec,
    compare_methods,
    frozen_delattr,
    frozen_setattr,
    getstate,
    setstate,
)
from worldinfo._record.methods import _code_of as _code_of
from worldinfo._record.methods import init_code as init_code
from worldinfo._record.methods import init_text as init_text

_frozen_setattr = frozen_setattr

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from collections.abc import Callable
    from dataclasses import field, replace
    from typing import Any, TypeVar, dataclass_transform, overload

    T = TypeVar("T")

_OWN = ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__")
_STATE = ("__getstate__", "__setstate__")
_WRITTEN = frozenset((*_OWN, *_STATE))  # written in the class: dataclasses makes it
_PROTOS: dict[tuple[bool, bool, bool], Any] = {}


def _dataclasses() -> Any:
    import dataclasses

    return dataclasses


class _Lazy:
    """A class attribute computed on first read (``__dataclass_fields__``/``_params__``)."""

    def __init__(self, name: str, make: Callable[[type], object]) -> None:
        self.name, self.make, self.owner = name, make, None

    def __get__(self, _obj: object, _owner: type | None = None) -> object:
        value = self.make(self.owner)  # type: ignore[arg-type]
        setattr(self.owner, self.name, value)
        return value


def _params(cls: type) -> object:
    """The ``__dataclass_params__`` of a slotted dataclass made with ``cls``'s options."""
    key: tuple[bool, bool, bool] = cls.__record_options__  # type: ignore[attr-defined]
    proto = _PROTOS.get(key)
    if proto is None:  # one real dataclass per kind, made on first use, lends its parameters
        frozen, kw_only, eq = key
        donor: Any = type("Proto", (), {"__doc__": "A parameter donor."})
        proto = _dataclasses().dataclass(donor, frozen=frozen, slots=True, kw_only=kw_only, eq=eq)
        _PROTOS[key] = proto
    return proto.__dataclass_params__


def _real_fields(cls: type) -> dict[str, object]:
    """``__dataclass_fields__``: a ``dataclasses.Field`` for each ``Spec`` of ``cls``."""
    dc = _dataclasses()
    out: dict[str, object] = {}
    for s in cls.__record_fields__:  # type: ignore[attr-defined]
        f = dc.field(**s.arguments(missing=dc.MISSING))
        f.name, f.type, f._field_type = s.name, s.type, dc._FIELD
        out[s.name] = f
    return out


def _spec_of(value: object) -> Spec | None:
    """``value`` as a ``Spec`` if it is a ``field(...)`` (ours or ``dataclasses``')."""
    if isinstance(value, Spec):
        return value
    dc = sys.modules.get("dataclasses")  # no dataclasses.Field without dataclasses
    if dc is None or not isinstance(value, dc.Field):
        return None
    return Spec(**vars_of(value))  # Spec maps dataclasses.MISSING to MISSING


def vars_of(f: Any) -> dict[str, Any]:
    """The ``field(...)`` arguments held by a ``dataclasses.Field``."""
    return {n: getattr(f, n) for n in _OPTIONS} | {"kw_only": f.kw_only}


def _specs(cls: type, *, kw_only: bool) -> list[Spec] | None:
    """The fields of ``cls``, or ``None`` when ``dataclasses`` must make it."""
    body = cls.__dict__
    if cls.__bases__ != (object,) or cls.__doc__ is None or "__slots__" in body:
        return None
    if not _WRITTEN.isdisjoint(body):
        return None
    notes: dict[str, object] = body.get("__annotations__", {})
    dc = sys.modules.get("dataclasses")
    specifiers = (Spec,) if dc is None else (Spec, dc.Field)  # what _spec_of takes
    if any(isinstance(v, specifiers) for k, v in body.items() if k not in notes):
        return None  # a field() without annotation: dataclasses' TypeError
    out, defaulted = [], False
    for name, note in notes.items():
        text = note if isinstance(note, str) else getattr(note, "__name__", "")
        if "InitVar" in text or "KW_ONLY" in text or "ClassVar" in text:
            return None
        value = body.get(name, MISSING)
        given = _spec_of(value) if isinstance(value, specifiers) else None
        if given is None:
            if dc is not None and value is dc.MISSING:
                value = MISSING  # as Spec(default=dataclasses.MISSING): no default
            if value.__class__.__hash__ is None:
                return None  # a mutable default: dataclasses' ValueError
            spec = Spec.plain(name, note, value, kw_only=kw_only)
        else:
            if given.kw_only not in (MISSING, kw_only) or given.hash is not None:
                return None
            if given.default.__class__.__hash__ is None:
                return None  # a mutable default: dataclasses' ValueError
            spec = given.named(name, note, kw_only=kw_only)
        if spec.init:
            required = spec.default is MISSING and spec.default_factory is MISSING
            if not kw_only and defaulted and required:
                return None  # dataclasses says: non-default argument follows default argument
            defaulted = defaulted or not required
        out.append(spec)
    return out


def _plain(cls: type, *, kw_only: bool = True) -> bool:
    """Whether ``record`` makes exactly what ``dataclasses`` would of ``cls``."""
    return _specs(cls, kw_only=kw_only) is not None


def _by_dataclasses(cls: type, *, frozen: bool, kw_only: bool, eq: bool) -> type:
    dc = _dataclasses()
    for name, value in list(cls.__dict__.items()):
        if isinstance(value, Spec):
            setattr(cls, name, dc.field(**value.arguments(missing=dc.MISSING)))
    made: type = dc.dataclass(frozen=frozen, slots=True, kw_only=kw_only, eq=eq)(cls)
    return made


def _repr(specs: list[Spec]) -> Callable[[object], str]:
    """``__repr__`` as dataclasses writes it (not compiled: a repr is never on a hot path)."""
    shown = tuple(s.name for s in specs if s.repr)

    @reprlib.recursive_repr()
    def __repr__(self: object) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in shown)
        return f"{self.__class__.__qualname__}({inner})"

    return __repr__


def _make(cls: type, *, frozen: bool, kw_only: bool, eq: bool = True) -> type:
    specs = _specs(cls, kw_only=kw_only)
    if specs is None:
        return _by_dataclasses(cls, frozen=frozen, kw_only=kw_only, eq=eq)
    names = tuple(s.name for s in specs)
    body = {k: v for k, v in cls.__dict__.items() if k not in names}
    body.pop("__dict__", None)
    body.pop("__weakref__", None)
    body["__slots__"] = names
    lazy = [_Lazy("__dataclass_fields__", _real_fields), _Lazy("__dataclass_params__", _params)]
    body |= {lazy[0].name: lazy[0], lazy[1].name: lazy[1]}
    body["__record_fields__"] = tuple(specs)
    body["__record_options__"] = (frozen, kw_only, eq)
    body["__match_args__"] = tuple(s.name for s in specs if s.init and not s.kw_only)
    made: Any = type(cls)(cls.__name__, cls.__bases__, body)
    made.__qualname__ = cls.__qualname__
    for attribute in lazy:
        attribute.owner = made
    made.__init__ = init = LazyInit(specs, frozen=frozen, kw_only=kw_only)
    init.owner = made
    made.__repr__ = _repr(specs)
    made.__repr__.__qualname__ = f"{made.__qualname__}.__repr__"
    if eq:
        compare_methods(made, specs, frozen=frozen)
    if frozen:
        made.__setattr__, made.__delattr__ = frozen_setattr, frozen_delattr
        made.__getstate__, made.__setstate__ = getstate, setstate
    return made  # type: ignore[no-any-return]


def _record(
    cls: type | None = None, /, *, frozen: bool = True, kw_only: bool = True, eq: bool = True
) -> type | Callable[[type], type]:
    if cls is None:
        return lambda c: _make(c, frozen=frozen, kw_only=kw_only, eq=eq)
    return _make(cls, frozen=frozen, kw_only=kw_only, eq=eq)


def _replace(obj: object, /, **changes: object) -> object:
    specs = getattr(type(obj), "__record_fields__", None)
    if specs is None or "__record_fields__" not in type(obj).__dict__:
        return _dataclasses().replace(obj, **changes)
    for s in specs:
        if not s.init and s.name in changes:
            raise ValueError(
                f"field {s.name} is declared with init=False, it cannot be specified with replace()"
            )
    kept = {s.name: getattr(obj, s.name) for s in specs if s.init and s.name not in changes}
    return type(obj)(**kept, **changes)


def field_names(class_or_instance: object) -> tuple[str, ...]:
    """The names of the fields of a record or dataclass, in order (for a record without
    importing ``dataclasses``).

    Raises:
        TypeError: not a dataclass (as ``dataclasses.fields``).
    """
    cls = class_or_instance if isinstance(class_or_instance, type) else type(class_or_instance)
    if "__record_fields__" in cls.__dict__:
        return tuple(s.name for s in cls.__record_fields__)  # type: ignore[attr-defined]
    return tuple(f.name for f in _dataclasses().fields(class_or_instance))


if TYPE_CHECKING:

    @overload
    def record(cls: type[T], /) -> type[T]: ...

    @overload
    def record(
        *, frozen: bool = True, kw_only: bool = True, eq: bool = True
    ) -> Callable[[type[T]], type[T]]: ...

    @dataclass_transform(frozen_default=True, kw_only_default=True, field_specifiers=(field,))
    def record(
        cls: type[T] | None = None,
        /,
        *,
        frozen: bool = True,
        kw_only: bool = True,
        eq: bool = True,
    ) -> type[T] | Callable[[type[T]], type[T]]:
        """A slotted dataclass: frozen, keyword-only and compared unless told otherwise."""

else:
    record = _record
    field = Spec  # field(...) is the Spec it describes
    replace = _replace

__all__ = ["FACTORY", "field", "field_names", "record", "replace"]
