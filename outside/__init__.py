"""Outside bots: an engine plays a seat through the public protocol only (``chouette bot run``,
docs/bots.md "Outside engines"). This package imports the client (:mod:`client`) and the rules
(:mod:`engine`, for GNU Backgammon's IDs, notation and the ``basic`` bot), never the server's
or the store's internals: what it does, any program on another machine could do.

- :mod:`outside.decide`: what the seat must do now, from its table view; an engine's answer
  checked before it becomes a command;
- :mod:`outside.engines`: ``basic``, ``gnubg`` and a program over the line protocol;
- :mod:`outside.runner`: the tables, their streams, the commands;
- :mod:`outside.cli`: the ``bot run`` subcommand.
"""

from outside.decide import Ask, EngineFailure, Question, Send, answer_of, next_step
from outside.engines import BasicEngine, CommandEngine, GnubgModuleEngine, engine_for
from outside.runner import BotRunner

__all__ = [
    "Ask",
    "BasicEngine",
    "BotRunner",
    "CommandEngine",
    "EngineFailure",
    "GnubgModuleEngine",
    "Question",
    "Send",
    "answer_of",
    "engine_for",
    "next_step",
]
