"""Bots' brains on the engine's values, pure like the rest of the engine: :mod:`engine.bots.basic`
(a cheap evaluation and plain cube rules). Deciding a table's next command for a bot is
:mod:`events.domain.bots`; running bots beside a server is :mod:`server.live.bots`."""

from engine.bots import basic

__all__ = ["basic"]
