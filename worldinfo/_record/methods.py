"""The methods ``record`` gives a class, and ``Spec``, what it knows of each field.

``__init__`` is the text ``dataclasses`` writes (``init_text``), compiled once per shape of
fields (``init_code``: a template with placeholder names, renamed per class);
``__eq__``/``__hash__`` are compiled on a class's first comparison; the frozen
``__setattr__``/``__delattr__`` and the pickling pair are shared functions.
"""

from __future__ import annotations

import sys
from types import CodeType, FunctionType

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from typing import Any


class _Missing:
    """No value given (``dataclasses.MISSING``'s twin; mapped to it in real ``Field``\\s)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<dataclasses._MISSING_TYPE object>"


class _Factory:
    """The keyword default of a field with a factory (shown as ``dataclasses`` shows it)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<factory>"


MISSING: Any = _Missing()
FACTORY: Any = _Factory()
_OPTIONS = ("default", "default_factory", "init", "repr", "hash", "compare", "metadata")


class Spec:
    """One field: ``field(...)``'s arguments, then its name and annotation."""

    __slots__ = (*_OPTIONS, "kw_only", "name", "type")

    def __init__(
        self,
        *,
        default: object = MISSING,
        default_factory: Any = MISSING,
        init: bool = True,
        repr: bool = True,
        hash: bool | None = None,
        compare: bool = True,
        metadata: object = None,
        kw_only: object = MISSING,
    ) -> None:
        dc = sys.modules.get("dataclasses")
        if dc is not None:  # dataclasses.MISSING, given explicitly, is not a value either
            default, default_factory, kw_only = (
                MISSING if v is dc.MISSING else v for v in (default, default_factory, kw_only)
            )
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.default, self.default_factory, self.init = default, default_factory, init
        self.repr, self.hash, self.compare = repr, hash, compare
        self.metadata, self.kw_only = metadata, kw_only
        self.name, self.type = "", ""

    def named(self, name: str, note: object, *, kw_only: bool) -> Spec:
        """A copy naming the field, with the class's ``kw_only`` if the field gave none."""
        out = Spec.__new__(Spec)  # a copy without __init__'s checks, made already
        out.default, out.default_factory, out.init = self.default, self.default_factory, self.init
        out.repr, out.hash, out.compare = self.repr, self.hash, self.compare
        out.metadata = self.metadata
        out.kw_only = kw_only if self.kw_only is MISSING else self.kw_only
        out.name, out.type = name, note  # type: ignore[assignment]
        return out

    @staticmethod
    def plain(name: str, note: object, default: object, *, kw_only: bool) -> Spec:
        """The field ``name: note = default`` (no ``field(...)``): ``Spec(default=default)
        .named(name, note, kw_only=kw_only)`` in one step (start-up time)."""
        out = Spec.__new__(Spec)
        out.default, out.default_factory, out.init = default, MISSING, True
        out.repr, out.hash, out.compare, out.metadata = True, None, True, None
        out.kw_only, out.name, out.type = kw_only, name, note  # type: ignore[assignment]
        return out

    def arguments(self, *, missing: object) -> dict[str, Any]:
        """``dataclasses.field``'s keyword arguments, ``missing`` for what was not given."""
        given = {n: getattr(self, n) for n in (*_OPTIONS, "kw_only")}
        return {n: missing if v is MISSING else v for n, v in given.items()}


def _dataclasses() -> Any:
    import dataclasses

    return dataclasses


def frozen_setattr(_self: object, name: str, _value: object) -> None:
    raise _dataclasses().FrozenInstanceError(f"cannot assign to field {name!r}")


def frozen_delattr(_self: object, name: str) -> None:
    raise _dataclasses().FrozenInstanceError(f"cannot delete field {name!r}")


def getstate(self: Any) -> list[object]:
    return [getattr(self, s.name) for s in self.__record_fields__]


def setstate(self: Any, state: list[object]) -> None:
    for s, value in zip(self.__record_fields__, state, strict=False):
        object.__setattr__(self, s.name, value)


_RESERVED = frozenset({"self", "_setattr", "_FACTORY"})
_TEMPLATES: dict[tuple[object, ...], tuple[CodeType, tuple[str, ...]]] = {}


def _kind(f: Spec) -> str:
    """How ``__init__`` sets a field: ``p`` parameter, ``F`` parameter with a factory,
    ``d``/``f`` not a parameter but a default/factory, ``""`` not set."""
    factory = f.default_factory is not MISSING
    if f.init:
        return "F" if factory else "p"
    return "f" if factory else "d" if f.default is not MISSING else ""


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


def init_method(cls: type, fields: list[Spec], *, frozen: bool, kw_only: bool) -> Any:
    """The ``__init__`` of ``cls``: its shape's template with the field names put in."""
    kept = [f for f in fields if _kind(f)]
    names = tuple(f.name for f in kept)
    kinds = tuple(_kind(f) for f in kept)
    shape = (frozen, kw_only, hasattr(cls, "__post_init__"))
    scope: dict[str, Any] = {"_setattr": object.__setattr__, "_FACTORY": FACTORY}
    for f in kept:
        if f.default_factory is not MISSING or not f.init:
            scope[f"__dataclass_dflt_{f.name}__"] = (
                f.default if f.default_factory is MISSING else f.default_factory
            )
    code = init_code(kinds, names, shape=shape)
    code = code.replace(co_qualname="__create_fn__.<locals>.__init__")  # as dataclasses' own
    fn: Any = FunctionType(code, scope, "__init__")
    defaults = {
        f.name: FACTORY if f.default_factory is not MISSING else f.default
        for f in kept
        if f.init and (f.default is not MISSING or f.default_factory is not MISSING)
    }
    if kw_only:
        fn.__kwdefaults__ = defaults or None
    else:
        fn.__defaults__ = tuple(defaults.values()) or None
    fn.__annotations__ = {f.name: f.type for f in kept if f.init} | {"return": None}
    fn.__qualname__ = f"{cls.__qualname__}.__init__"
    return fn


class LazyInit:
    """A class's ``__init__`` until it is first read (the first instantiation, or
    ``inspect.signature``): then ``init_method`` makes the real one, which replaces this on
    the class. Most classes of a scan are never made, so their ``__init__`` is never
    compiled (start-up time)."""

    __slots__ = ("fields", "frozen", "kw_only", "owner")

    def __init__(self, fields: list[Spec], *, frozen: bool, kw_only: bool) -> None:
        self.fields, self.frozen, self.kw_only = fields, frozen, kw_only
        self.owner: Any = None  # the class, set once it is made

    def __get__(self, obj: object, owner: type | None = None) -> Any:
        cls = self.owner
        fn = init_method(cls, self.fields, frozen=self.frozen, kw_only=self.kw_only)
        type.__setattr__(cls, "__init__", fn)
        return fn if obj is None else fn.__get__(obj, owner)


def _compiled(text: str) -> dict[str, Any]:
    scope: dict[str, Any] = {}
    code = compile(text, "<string>", "exec", dont_inherit=True)  # no future annotations
    exec(code, {}, scope)  # noqa: S102 - the text is made here from field names only
    made: dict[str, Any] = scope["__create_fn__"]()
    return made


def compare_methods(made: Any, fields: list[Spec], *, frozen: bool) -> None:
    """``__eq__`` (and ``__hash__`` when frozen) as dataclasses writes them, compiled on the
    first comparison: most classes of a scan are never compared or hashed (start-up time)."""
    done: list[bool] = []

    def install() -> None:
        if not done:
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
            for name, fn in _compiled(text).items():
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
