"""The benches' own tests run over a fresh PostgreSQL database each: the fixtures of
:mod:`tests.db` (``owner_url`` and the rest)."""

from __future__ import annotations

from tests.db import *  # noqa: F403 (the database fixtures, by name: tests.db.__all__)

collect_ignore = ["conftest.py"]
"""No doctests here: collected as a module, this file would be imported a second time under the
name ``conftest``, which clashes with the other folders' conftest files (as in tests/e2e)."""
