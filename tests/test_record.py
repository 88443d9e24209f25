"""``record`` makes what ``@dataclass(frozen=True, slots=True, kw_only=True)`` makes.

Random classes (fields with and without defaults, factories, ``init=False``, ``repr=False``,
``compare=False``, a ``__post_init__``) are made both ways and compared on everything a
caller can see: the signature, ``fields``, ``repr``, ``==``, ``hash``, ``replace``,
``pickle``, the frozen errors, ``__slots__`` and ``__match_args__``. Then every class of the
package that ``record`` made is compared with ``dataclasses``' own version of its fields.
"""

from __future__ import annotations

import copy
import dataclasses
import importlib
import inspect
import keyword
import pickle
import pkgutil
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import worldinfo
from worldinfo._record import (
    _code_of,
    _frozen_setattr,
    _plain,
    field_names,
    init_code,
    init_text,
    record,
)
from worldinfo._record import field as record_field
from worldinfo._record import replace as record_replace

_KINDS = ("required", "default", "factory", "noinit_default", "noinit_factory")


def _declare(specs: list[tuple[str, bool, bool]], *, post_init: bool) -> str:
    lines = ["class C:", '    """A generated class."""']
    for i, (kind, shown, compared) in enumerate(specs):
        flags = "" if shown else ", repr=False"
        flags += "" if compared else ", compare=False"
        value = {
            "required": f"field(default=MISSING{flags})" if flags else None,
            "default": f"field(default={i}{flags})",
            "factory": f"field(default_factory=lambda: ({i},){flags})",
            "noinit_default": f"field(default={i}, init=False{flags})",
            "noinit_factory": f"field(default_factory=tuple, init=False{flags})",
        }[kind]
        note = "tuple[int, ...]" if "factory" in kind else "int"
        lines.append(f"    f{i}: {note}" + (f" = {value}" if value else ""))
    if post_init:
        lines += ["    def __post_init__(self):", "        seen.append(self.f0)"]
    return "\n".join(lines)


def _make(text: str, decorator: Any, *, field: Any = dataclasses.field) -> tuple[Any, list[object]]:
    seen: list[object] = []
    scope: dict[str, Any] = {"field": field, "MISSING": dataclasses.MISSING}
    scope["seen"] = seen
    exec(text, scope)  # noqa: S102 - the class text made above
    return decorator(scope["C"]), seen


_SPECS = st.lists(
    st.tuples(st.sampled_from(_KINDS), st.booleans(), st.booleans()), min_size=0, max_size=6
)


def _shape(cls: type) -> list[tuple[object, ...]]:
    return [
        (f.name, f.type, f.init, f.repr, f.compare, f.hash, f.kw_only)
        for f in dataclasses.fields(cls)
    ]


@settings(max_examples=300, deadline=None)
@given(
    specs=_SPECS,
    post_init=st.booleans(),
    values=st.lists(st.integers(), min_size=6),
    frozen=st.booleans(),
    kw_only=st.booleans(),
)
def test_record_makes_what_dataclasses_makes(
    specs: list[tuple[str, bool, bool]],
    post_init: bool,
    values: list[int],
    frozen: bool,
    kw_only: bool,
) -> None:
    post_init = post_init and bool(specs) and specs[0][0] != "noinit_factory"
    text = _declare(specs, post_init=post_init)
    options = {"frozen": frozen, "kw_only": kw_only}
    try:
        theirs, their_seen = _make(text, dataclasses.dataclass(slots=True, **options))
    except TypeError as exc:  # positional: a field without default after one with
        with pytest.raises(TypeError, match=str(exc)):
            _make(text, record(**options))
        with pytest.raises(TypeError, match=str(exc)):
            _make(text, record(**options), field=record_field)
        assert not _plain(_make(text, lambda c: c)[0], kw_only=kw_only)
        return
    ours, our_seen = _make(text, record(**options), field=record_field)
    assert _plain(_make(text, lambda c: c)[0], kw_only=kw_only)
    assert str(inspect.signature(ours)) == str(inspect.signature(theirs))
    assert ours.__init__.__annotations__ == theirs.__init__.__annotations__
    assert ours.__slots__ == theirs.__slots__
    assert ours.__match_args__ == theirs.__match_args__
    assert repr(ours.__dataclass_params__) == repr(theirs.__dataclass_params__)
    assert _shape(ours) == _shape(theirs)
    assert (ours.__hash__ is None) is (theirs.__hash__ is None) is (not frozen)
    kwargs = {
        f"f{i}": ((values[i],) if "factory" in kind else values[i])
        for i, (kind, _, _) in enumerate(specs)
        if not kind.startswith("noinit")
    }
    required = {k: v for k, v in kwargs.items() if specs[int(k[1:])][0] == "required"}
    for args in (kwargs, required):
        a, b = ours(**args), theirs(**args)
        assert repr(a).replace("C(", "") == repr(b).replace("C(", "")
        assert (a == ours(**args)) is (b == theirs(**args)) is True
        assert a.__eq__(b) is NotImplemented
        assert dataclasses.asdict(a) == dataclasses.asdict(b)
        assert copy.deepcopy(a) == a and copy.copy(a) == a
        assert dataclasses.replace(a, **args) == a
        assert dataclasses.replace(b, **args) == b
        assert record_replace(a, **args) == a
        assert record_replace(b, **args) == b  # not a record: dataclasses.replace
        assert field_names(a) == tuple(f.name for f in dataclasses.fields(b))
        if not kw_only:
            assert ours(*args.values()) == a and theirs(*args.values()) == b
        if not frozen:
            if specs:
                a.f0 = b.f0 = 7
            assert dataclasses.astuple(a) == dataclasses.astuple(b)
            continue
        assert hash(a) == hash(b)
        assert a.__getstate__() == b.__getstate__()
        for name in ("f0", "other"):
            with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign"):
                setattr(a, name, 1)
        if specs:
            with pytest.raises(dataclasses.FrozenInstanceError, match="cannot delete"):
                delattr(a, "f0")
    assert our_seen == their_seen
    missing = {k: v for k, v in required.items() if k != "f0"}
    if "f0" in required:
        with pytest.raises(TypeError, match="missing 1 required .*argument: 'f0'"):
            ours(**missing)


def test_what_record_does_not_reproduce_goes_to_dataclasses() -> None:
    class Base:
        """A base."""

    class Child(Base):
        """Has a base."""

        x: int = 0

    class Undocumented:
        x: int = 0

    class OwnRepr:
        """Writes its own repr."""

        x: int = 0

        def __repr__(self) -> str:
            return "mine"

    for cls in (Child, Undocumented, OwnRepr):
        assert not _plain(cls)
    made = record(OwnRepr)
    assert repr(made()) == "mine"
    with pytest.raises(dataclasses.FrozenInstanceError):
        made().x = 1


def _package_records() -> list[Any]:
    for info in pkgutil.walk_packages(worldinfo.__path__, "worldinfo."):
        if ".server" in info.name or info.name.endswith("__main__"):
            continue
        try:
            importlib.import_module(info.name)
        except ImportError:
            continue
    return [
        cls
        for name, module in sorted(sys.modules.items())
        if name.startswith("worldinfo")
        for cls in vars(module).values()
        if isinstance(cls, type)
        and cls.__module__ == name
        and dataclasses.is_dataclass(cls)
        and getattr(cls.__repr__, "__wrapped__", cls.__repr__).__module__ == "worldinfo._record"
    ]


def test_every_record_of_the_package_matches_its_dataclass() -> None:
    made = _package_records()
    assert len(made) >= 80  # the value classes of the engine, macros, importers, ...
    defaults_only = 0
    for cls in made:
        spec = [
            (
                f.name,
                f.type,
                dataclasses.field(
                    default=f.default,
                    default_factory=f.default_factory,
                    init=f.init,
                    repr=f.repr,
                    compare=f.compare,
                ),
            )
            for f in dataclasses.fields(cls)
        ]
        frozen = cls.__dataclass_params__.frozen
        kw_only = all(f.kw_only for f in dataclasses.fields(cls))
        ref: Any = dataclasses.make_dataclass(
            cls.__name__, spec, frozen=frozen, slots=True, kw_only=kw_only
        )
        assert (cls.__setattr__ is _frozen_setattr) is frozen, cls
        assert str(inspect.signature(cls)) == str(inspect.signature(ref)), cls
        assert cls.__slots__ == ref.__slots__, cls
        assert field_names(cls) == tuple(f.name for f in dataclasses.fields(cls)), cls
        required = [p for p in inspect.signature(cls).parameters.values() if p.default is p.empty]
        if required or hasattr(cls, "__post_init__"):
            continue
        defaults_only += 1
        ours, theirs = cls(), ref()
        assert repr(ours) == repr(theirs), cls
        assert ours == pickle.loads(pickle.dumps(ours)), cls  # a real module: pickle finds it
        assert dataclasses.astuple(ours) == dataclasses.astuple(theirs), cls
        if cls.__hash__ is not None and ref.__hash__ is not None:
            try:
                expected = hash(theirs)
            except TypeError:  # a default that cannot be hashed: ours cannot either
                with pytest.raises(TypeError):
                    hash(ours)
            else:
                assert hash(ours) == expected, cls
    assert defaults_only >= 10


_NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True).filter(
    lambda n: not keyword.iskeyword(n)  # a keyword cannot name a field
)


@settings(max_examples=300, deadline=None)
@given(
    fields=st.lists(
        st.tuples(_NAMES, st.sampled_from("pFdf")), max_size=8, unique_by=lambda t: t[0]
    ),
    shape=st.tuples(st.booleans(), st.booleans(), st.booleans()),
)
def test_a_shared_template_gives_the_code_a_compile_gives(
    fields: list[tuple[str, str]], shape: tuple[bool, bool, bool]
) -> None:
    names = tuple(n for n, _ in fields)
    kinds = tuple(k for _, k in fields)
    made = init_code(kinds, names, shape=shape)
    direct = _code_of(init_text(kinds, names, shape=shape))
    for attr in (
        "co_code",
        "co_consts",
        "co_names",
        "co_varnames",
        "co_freevars",
        "co_argcount",
        "co_kwonlyargcount",
        "co_flags",
        "co_exceptiontable",
    ):  # co_linetable differs in column offsets only (traceback carets), not in lines
        assert getattr(made, attr) == getattr(direct, attr), attr
    assert list(made.co_lines()) == list(direct.co_lines())


@pytest.mark.parametrize("kw_only", [True, False])
def test_a_missing_argument_reads_as_dataclasses_says(kw_only: bool) -> None:
    text = _declare([("required", True, True), ("required", True, True)], post_init=False)
    ours, _ = _make(text, record(kw_only=kw_only))
    theirs, _ = _make(text, dataclasses.dataclass(frozen=True, slots=True, kw_only=kw_only))
    for args in ({}, {"f0": 1}, {"f0": 1, "f1": 2, "f2": 3}):
        with pytest.raises(TypeError) as mine:
            ours(**args)
        with pytest.raises(TypeError) as expected:
            theirs(**args)
        assert str(mine.value) == str(expected.value)
