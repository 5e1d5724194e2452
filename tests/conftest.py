"""The root of the tests, which holds no fixture: each folder's tests need only what its own
conftest imports. ``tests/engine`` needs nothing but pytest and hypothesis; the database fixtures
(a fresh PostgreSQL database per test, the store on it) are in :mod:`tests.db`, imported by the
conftests of ``tests/events``, ``tests/server``, ``tests/e2e`` and ``tests/bench``.

This file also puts ``tests/`` on ``sys.path`` (pytest's rootdir conftest import), which the
helper modules here (``dice``, ``records``, ``poisoned``...) are imported by.
"""

collect_ignore = ["conftest.py"]
"""No doctests here: collected as a module, this file would be imported a second time under the
name ``conftest``, which clashes with the other folders' conftest files (as in tests/bench)."""
