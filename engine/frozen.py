"""Changed copies of frozen dataclasses: a faster ``dataclasses.replace`` for the engine's frozen,
slotted value classes.

Every action on a game, a match or a chouette returns a changed copy, and folding a table's
events does that tens of thousands of times a second: the standard ``dataclasses.replace``
re-reads the class's fields and calls ``__init__`` on every copy, which profiles showed as the
largest single cost of a fold. This compiles, once per class, a function that copies the slots
directly (the way dataclasses itself generates ``__init__``). Classes with a ``__post_init__``
(validation) go through ``dataclasses.replace`` so it still runs.

>>> from engine.game import Cube
>>> replace(Cube(2, 0), value=4)
Cube(value=4, owner=0)
>>> replace(Cube(), colour=1)
Traceback (most recent call last):
...
TypeError: Cube has no field 'colour'
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

Copier = Callable[[Any, dict[str, Any]], Any]

_COPIERS: dict[type, Copier | None] = {}


def _compile(cls: type, names: tuple[str, ...]) -> Copier:
    """A copier specialised to ``cls``'s fields (as dataclasses generates ``__init__``).

    The copy is made as an instance of a subclass that adds no slot and takes plain
    attribute stores (``cls`` is frozen: its own ``__setattr__`` refuses them, and
    ``object.__setattr__`` by name is several times slower), then becomes a ``cls`` by
    ``__class__`` assignment (the layouts are the same) before anyone sees it."""
    mutable = type(
        cls.__name__,
        (cls,),
        {
            "__slots__": (),
            "__setattr__": object.__setattr__,
            "__delattr__": object.__delattr__,
            "__module__": cls.__module__,
            "__qualname__": f"{cls.__qualname__}.<copy>",
        },
    )
    lines = ["def copy(obj, changes):", "    new = new_(mutable)"]
    lines += [f"    new.{n} = obj.{n}" for n in names]
    lines += [
        "    for name, value in changes.items():",
        "        if name not in known:",
        "            bad = next(iter(changes.keys() - known))",
        "            raise TypeError(f'{cls.__name__} has no field {bad!r}')",
        "        set_(new, name, value)",
        "    new.__class__ = cls",
        "    return new",
    ]
    scope: dict[str, Any] = {
        "new_": object.__new__,
        "set_": object.__setattr__,
        "cls": cls,
        "mutable": mutable,
        "known": frozenset(names),
    }
    exec("\n".join(lines), scope)
    copier: Copier = scope["copy"]
    return copier


def _copier(cls: type) -> Copier | None:
    try:
        return _COPIERS[cls]
    except KeyError:
        pass
    copier: Copier | None = None
    if (
        dataclasses.is_dataclass(cls)
        and "__slots__" in cls.__dict__
        and not hasattr(cls, "__post_init__")
        and cls.__dataclass_params__.frozen  # type: ignore[attr-defined]
    ):
        names = tuple(f.name for f in dataclasses.fields(cls))
        if set(names) == set(cls.__dict__["__slots__"]) and all(n.isidentifier() for n in names):
            copier = _compile(cls, names)
    _COPIERS[cls] = copier
    return copier


def replace(obj: T, /, **changes: Any) -> T:
    """A copy of ``obj`` with ``changes``, like :func:`dataclasses.replace`.

    :raises TypeError: a name that is not a field.
    """
    try:
        copier = _COPIERS[type(obj)]
    except KeyError:
        copier = _copier(type(obj))
    if copier is None:
        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    new: T = copier(obj, changes)
    return new
