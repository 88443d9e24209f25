"""``lazy_names``: the PEP 562 ``__getattr__`` the lazy package ``__init__``\\s share;
``lazy_logger``: a module's logger, with ``logging`` imported on the first message.

A package lists where each public name lives (``{name: module}``); ``import package`` loads
none of those modules, and the first use of a name imports its module and keeps the value
in the package's namespace, so later uses are plain attribute reads (start-up time).
"""

from __future__ import annotations

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    import typing
    from collections.abc import Callable, Mapping, MutableMapping
    from logging import Logger
    from typing import Any

    _T = typing.TypeVar("_T")
    _F = typing.TypeVar("_F", bound=Callable[..., object])


def lazy_names(
    package: str, homes: Mapping[str, str], namespace: MutableMapping[str, object]
) -> Callable[[str], object]:
    """The ``__getattr__`` of ``package``: import a name's module on first use.

    Args:
        package: the package's name, for the error message.
        homes: each lazy name -> the full name of the module defining it.
        namespace: the package's ``globals()``; a loaded value is kept there.

    Returns:
        A function raising ``AttributeError`` (as a module does) for a name not in ``homes``.
    """

    def __getattr__(name: str) -> object:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        import importlib

        value = getattr(importlib.import_module(home), name)
        namespace[name] = value
        return value

    return __getattr__


class _Logger:
    """``logging.getLogger(name)``, looked up on the first message."""

    __slots__ = ("_logger", "_name")

    def __init__(self, name: str) -> None:
        self._name = name
        self._logger: object = None

    def __getattr__(self, attr: str) -> object:
        logger = self._logger
        if logger is None:
            import logging

            logger = self._logger = logging.getLogger(self._name)
        return getattr(logger, attr)


def lazy_logger(name: str) -> Logger:
    """``logging.getLogger(name)`` for a module on the scan path: ``logging`` (with
    ``traceback``, ``linecache``, ``tokenize``, ``string``: a tenth of a scan's start-up) is
    imported when the first message is logged, and every call goes to that same logger
    (so ``caplog``, levels and handlers see nothing different; the caller's frame is the
    one ``logging`` records).

    Args:
        name: the module's ``__name__``.
    """
    return _Logger(name)  # type: ignore[return-value]


def system_random() -> Callable[[], float]:
    """``random.Random().random`` (a generator seeded from the system), made on first draw:
    a scan that draws nothing never imports ``random`` (start-up time)."""
    draw: Callable[[], float] | None = None

    def first() -> float:
        nonlocal draw
        if draw is None:
            import random

            draw = random.Random().random
        return draw()

    return first


# --- run-time stand-ins for typing -----------------------------------------------------------
# A module on the scan path imports what mypy reads from typing under TYPE_CHECKING and these
# otherwise: importing typing costs a start-up about 15 M instructions. Each does at run time
# what the typing name does there for how the package uses it.


def cast(typ: object, val: _T) -> _T:  # noqa: ARG001 (typing.cast's signature)
    """``typing.cast``: ``val`` itself."""
    return val


def overload(func: _F) -> _F:
    """``typing.overload`` for stubs the undecorated implementation then replaces."""
    return func


def TypeVar(name: str, *constraints: object, **options: object) -> str:  # noqa: ARG001
    """A type variable's stand-in: only ``Generic[...]`` and annotations read it."""
    return name


class Generic:
    """``typing.Generic`` as a base: subscripting the class gives the class."""

    __slots__ = ()

    def __class_getitem__(cls, params: object) -> type:
        return cls


class Protocol:
    """``typing.Protocol`` for protocols only annotations name (never checked at run time)."""

    __slots__ = ()


class _NamedTupleMeta(type):
    def __new__(mcls, name: str, bases: tuple[type, ...], ns: dict[str, Any]) -> Any:
        if not bases:
            return super().__new__(mcls, name, bases, ns)
        import collections

        notes: dict[str, object] = ns.get("__annotations__", {})
        defaults = [ns[f] for f in notes if f in ns]
        make: Any = collections.namedtuple  # (mypy reads typing.NamedTuple instead)
        made = make(name, list(notes), defaults=defaults, module=ns["__module__"])
        for key, value in ns.items():  # as typing.NamedTupleMeta: the body's other names
            if key not in notes and key not in ("__module__", "__annotations__"):
                setattr(made, key, value)
        made.__annotations__ = dict(notes)
        return made


class NamedTuple(metaclass=_NamedTupleMeta):
    """``typing.NamedTuple`` as a base written with annotations (``collections.namedtuple``)."""
