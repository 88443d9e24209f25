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
from types import CodeType, FunctionType

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


_RESERVED = frozenset({"self", "_setattr", "_FACTORY"})
_TEMPLATES: dict[tuple[object, ...], tuple[CodeType, tuple[str, ...]]] = {}


def _kind(f: dataclasses.Field[object]) -> str:
    """How ``__init__`` sets a field: ``p`` parameter, ``F`` parameter with a factory,
    ``d``/``f`` not a parameter but a default/factory, ``""`` not set."""
    factory = f.default_factory is not _MISSING
    if f.init:
        return "F" if factory else "p"
    return "f" if factory else "d" if f.default is not _MISSING else ""


def init_text(kinds: tuple[str, ...], names: tuple[str, ...], *, shape: tuple[bool, ...]) -> str:
    """``__init__`` as dataclasses writes it, for fields ``names`` set as ``kinds`` say; the
    defaults and factories are the globals ``__dataclass_dflt_NAME__``."""
    frozen, kw_only, post_init = shape
    params, body = [], []
    for kind, name in zip(kinds, names, strict=True):
        dflt = f"__dataclass_dflt_{name}__"
        value = {"p": name, "F": f"{dflt}() if {name} is _FACTORY else {name}"}.get(kind)
        if kind in "pF":
            params.append(name)
        value = value or (f"{dflt}()" if kind == "f" else dflt)
        body.append(f" _setattr(self,{name!r},{value})" if frozen else f" self.{name}={value}")
    if post_init:
        body.append(" self.__post_init__()")
    star = "*, " if params and kw_only else ""
    return "\n".join([f"def __init__(self, {star}{', '.join(params)}):", *(body or [" pass"])])


def _template(kinds: tuple[str, ...], shape: tuple[bool, ...]) -> tuple[CodeType, tuple[str, ...]]:
    """The compiled ``__init__`` of one shape, with placeholder names ``_0_``, ``_1_`` ...:
    classes of the same shape share one compile (start-up time)."""
    key = (kinds, shape)
    hit = _TEMPLATES.get(key)
    if hit is None:
        holders = tuple(f"_{i}_" for i in range(len(kinds)))
        hit = _TEMPLATES[key] = (_code_of(init_text(kinds, holders, shape=shape)), holders)
    return hit


def _code_of(text: str) -> CodeType:
    module = compile(text, "<string>", "exec", dont_inherit=True)
    return next(c for c in module.co_consts if isinstance(c, CodeType))


def init_code(
    kinds: tuple[str, ...], names: tuple[str, ...], *, shape: tuple[bool, ...]
) -> CodeType:
    """The code of ``init_text(kinds, names)``, made from the shape's template: the same
    code a compile of that text gives (``tests/test_record.py`` checks it)."""
    if _RESERVED.intersection(names) or any(n.startswith("__dataclass_") for n in names):
        return _code_of(init_text(kinds, names, shape=shape))
    template, holders = _template(kinds, shape)
    rename = dict(zip(holders, names, strict=True))
    rename |= {f"__dataclass_dflt_{h}__": f"__dataclass_dflt_{n}__" for h, n in rename.items()}
    return template.replace(
        co_varnames=tuple(rename.get(n, n) for n in template.co_varnames),
        co_names=tuple(rename.get(n, n) for n in template.co_names),
        co_consts=tuple(rename.get(c, c) if isinstance(c, str) else c for c in template.co_consts),
    )


def _init(
    cls: type, fields: list[dataclasses.Field[object]], *, frozen: bool, kw_only: bool
) -> Any:
    """The ``__init__`` of ``cls``: its shape's template with the field names put in."""
    kept = [f for f in fields if _kind(f)]
    names = tuple(f.name for f in kept)
    kinds = tuple(_kind(f) for f in kept)
    shape = (frozen, kw_only, hasattr(cls, "__post_init__"))
    scope: dict[str, Any] = {"_setattr": object.__setattr__, "_FACTORY": _FACTORY}
    for f in kept:
        if f.default_factory is not _MISSING or not f.init:
            scope[f"__dataclass_dflt_{f.name}__"] = (
                f.default if f.default_factory is _MISSING else f.default_factory
            )
    code = init_code(kinds, names, shape=shape)
    code = code.replace(co_qualname="__create_fn__.<locals>.__init__")  # as dataclasses' own
    fn: Any = FunctionType(code, scope, "__init__")
    defaults = {
        f.name: _FACTORY if f.default_factory is not _MISSING else f.default
        for f in kept
        if f.init and (f.default is not _MISSING or f.default_factory is not _MISSING)
    }
    if kw_only:
        fn.__kwdefaults__ = defaults or None
    else:
        fn.__defaults__ = tuple(defaults.values()) or None
    fn.__annotations__ = {f.name: f.type for f in kept if f.init} | {"return": None}
    fn.__qualname__ = f"{cls.__qualname__}.__init__"
    return fn


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
    methods = {"__init__": _init(made, fields, frozen=frozen, kw_only=kw_only)}
    methods["__repr__"] = _repr(fields)
    if frozen:
        methods |= {"__setattr__": _frozen_setattr, "__delattr__": _frozen_delattr}
        methods |= {"__getstate__": _getstate, "__setstate__": _setstate}
    for name in (*_OWN, *_STATE):
        if name in methods:
            if name == "__repr__":
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
