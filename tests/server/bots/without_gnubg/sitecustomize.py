"""Put first on ``PYTHONPATH`` of a server process, this makes GNU Backgammon's module
impossible to import in it (and in the worker processes it spawns), as on a server installed
without the ``chouette[gnubg]`` extra (tests/server/bots/test_analysis_endpoint.py)."""

import sys


class _Without:
    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name == "gnubg" or name.startswith("gnubg."):
            raise ModuleNotFoundError(f"No module named {name!r} (blocked)", name=name)


sys.meta_path.insert(0, _Without())
