"""GNU Backgammon's Python module (``gnubg``, a test extra): the oracle some engine tests compare
the engine with (its legal plays, position and match IDs).

:func:`gnubg` imports it. Its absence fails those tests in CI (``CI=true``), where the test extra
is installed, except in the run of ``tests/engine`` alone in a venv of pytest and hypothesis only
(``.ci/run`` sets ``CHOUETTE_ENGINE_ONLY=1`` there): then, as on a newcomer's machine outside CI,
they are skipped with the reason, and every other engine test runs.
"""

from __future__ import annotations

import os
from types import ModuleType

import pytest

ENGINE_ONLY = os.environ.get("CHOUETTE_ENGINE_ONLY", "").lower() in ("1", "true", "yes")
"""This run is ``tests/engine`` in a venv of pytest and hypothesis only."""
CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def gnubg() -> ModuleType:
    """The ``gnubg`` module; when it is missing, skip the caller (a test, or a test module at
    import) unless in CI outside the engine-only run, where the import error fails it."""
    try:
        import gnubg as module
    except ModuleNotFoundError:
        if CI and not ENGINE_ONLY:
            raise
        pytest.skip(
            "GNU Backgammon's Python module (the gnubg test extra) is not installed",
            allow_module_level=True,
        )
    return module
