"""The one room of ``server/`` that speaks SQL (``tests/test_sql_places.py``): the read models
the server projects from the log, and the stores of what the server keeps beside the log.

Read models, each kept by a projector of the log and rebuilt from it (:mod:`.rebuild`):

- :mod:`.lobby`: the open and running tables;
- :mod:`.profiles`: the players' tables, results and winnings;
- :mod:`.ratings`: the rated matches' ratings and their history;
- :mod:`.rebuild`: the projectors' checkpoints, and rebuilding a read model from the log.

Stores of the server's own rows (not derived from the log):

- :mod:`.accounts`: accounts, their bearer tokens and stream tickets;
- :mod:`.invitations`: private tables, their invitations and the access they give;
- :mod:`.limits`: the cap on open tables, counted across processes;
- :mod:`.analyses`: the cache of the tables' analyses.

The delivery modules (:mod:`server.http`, :mod:`server.live`, :mod:`server.cli`) call these
modules' typed functions; a statement that ran in one transaction runs in one function here.
The event store and its own tables are :mod:`events.store`'s.
"""
