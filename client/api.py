"""The client: an account's HTTP calls and a table's live stream, over one
:class:`aiohttp.ClientSession`.

Commands carry a command id (a UUID made here unless the caller gives one) and are retried with
the same id on a network error or a 5xx answer: the server records a command once, and answers
a retry with its first outcome (``duplicate``). :meth:`Client.follow` is a table's stream that
survives dropped connections: it reconnects and resumes after the last version of each stream,
so the caller sees every event once, in order, and is told (:class:`~client.messages.Resynced`)
when the server could not resume.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

import aiohttp
import msgspec

from client.messages import (
    Account,
    AnyControl,
    CommandResult,
    EventMessage,
    Presence,
    Problem,
    Resync,
    Resynced,
)

__all__ = ["ApiError", "Client", "ProtocolError"]


class ApiError(Exception):
    """The server refused a request: :attr:`problem` is its RFC 9457 problem."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(f"{problem.status} {problem.slug}: {problem.detail}")
        self.problem = problem


class ProtocolError(Exception):
    """The stream broke its promise (a version skipped or repeated): a server bug."""


_RETRIED = (aiohttp.ClientConnectionError, aiohttp.ClientPayloadError, TimeoutError)
"""The network errors a request is retried after (an answer may have been lost)."""


class Client:
    """A chouette server at ``url``, as one account (or anonymous until :meth:`login`,
    :meth:`register` or :meth:`guest`).

    ``retries`` is how many times a request is sent again after a network error or a 5xx (a
    ``429``'s ``Retry-After`` is waited too), ``backoff`` the first wait in seconds (doubled
    each time).

    A bot's loop, in short::

        async with Client("http://localhost:8080") as c:
            await c.guest("bot")
            table = await c.create_table("money")
            await c.join(table)
            async for msg in c.follow(table):
                if msg.t == "dice_rolled" and msg.m and msg.m.player == c.account_id:
                    plays = msg.m.plays()
                    if plays:
                        await c.move(table, plays[0])
    """

    def __init__(
        self,
        url: str,
        *,
        token: str | None = None,
        session: aiohttp.ClientSession | None = None,
        retries: int = 5,
        backoff: float = 0.2,
    ) -> None:
        self.url = url.rstrip("/")
        self.token = token
        self.account: Account | None = None
        self.retries = retries
        self.backoff = backoff
        self._session = session
        self._own_session = session is None

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Close the HTTP session (if this client made it)."""
        if self._own_session and self._session is not None:
            await self._session.close()
        self._session = None

    @property
    def session(self) -> aiohttp.ClientSession:
        if self._session is None:
            self._session = aiohttp.ClientSession()
            self._own_session = True
        return self._session

    @property
    def account_id(self) -> str | None:
        """The account this client acts for (None: anonymous, or a token given as it was)."""
        return self.account.account_id if self.account else None

    # -- HTTP -----------------------------------------------------------------------------

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    async def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        """``method path`` with the token, its JSON ``body``; the answer's status and JSON.
        Retried after a network error, a 5xx or a 429 (the same bytes: a command keeps its id).

        :raises ApiError: the server refused it (4xx, or 5xx after every retry).
        """
        data = None if body is None else msgspec.json.encode(body)
        headers = self._headers()
        if data is not None:
            headers["Content-Type"] = "application/json"
        wait = self.backoff
        for attempt in range(self.retries + 1):
            last = attempt == self.retries
            try:
                async with self.session.request(
                    method, self.url + path, data=data, headers=headers
                ) as resp:
                    raw = await resp.read()
                    status = resp.status
                    retry_after = resp.headers.get("Retry-After")
            except _RETRIED:
                if last:
                    raise
                await asyncio.sleep(wait)
                wait *= 2
                continue
            if status < 400:
                return status, msgspec.json.decode(raw) if raw else None
            if (status >= 500 or status == 429) and not last:
                await asyncio.sleep(_retry_after(retry_after, wait))
                wait *= 2
                continue
            raise ApiError(_problem(status, raw))
        raise AssertionError("unreachable")  # pragma: no cover

    async def _sign_in(self, path: str, body: dict[str, Any]) -> Account:
        _, answer = await self.request("POST", path, body)
        self.account = msgspec.convert(answer, Account)
        self.token = self.account.token
        return self.account

    async def register(self, username: str, password: str, display_name: str = "") -> Account:
        """Open an account, and act as it."""
        body = {"username": username, "password": password, "display_name": display_name}
        return await self._sign_in("/accounts", body)

    async def login(self, username: str, password: str) -> Account:
        """Log in to an account, and act as it."""
        return await self._sign_in("/sessions", {"username": username, "password": password})

    async def guest(self, display_name: str = "") -> Account:
        """Play as a new guest account."""
        return await self._sign_in("/guests", {"display_name": display_name})

    async def ticket(self) -> str:
        """A single-use stream ticket (``?ticket=``), for a client that cannot send headers."""
        _, answer = await self.request("POST", "/tickets")
        return str(answer["ticket"])

    async def create_table(
        self,
        kind: Literal["money", "match", "chouette"],
        options: dict[str, Any] | None = None,
        name: str = "",
        *,
        command_id: str | None = None,
    ) -> str:
        """Create a table; its id. Retry-safe: the id follows from ``command_id``."""
        body = {
            "command_id": command_id or str(uuid.uuid4()),
            "kind": kind,
            "options": options or {},
            "name": name,
        }
        _, answer = await self.request("POST", "/tables", body)
        return str(answer["id"])

    async def table(self, table_id: str) -> dict[str, Any]:
        """The table as this account sees it (``GET /tables/{id}``): whose turn, ``allowed``,
        the legal plays, the cubes, ``version``..."""
        _, answer = await self.request("GET", f"/tables/{table_id}")
        return dict(answer)

    async def send(
        self, table_id: str, command: dict[str, Any], command_id: str | None = None
    ) -> CommandResult:
        """Send ``command`` (``{"type": ..., ...}``) with ``command_id`` (a new UUID unless
        given), retried with the same id until answered: recorded once whatever happens to
        the answers (a retry's is ``duplicate``).

        :raises ApiError: refused (not your turn, an illegal play...): nothing was recorded.
        """
        body = {"command_id": command_id or str(uuid.uuid4()), "command": command}
        _, answer = await self.request("POST", f"/tables/{table_id}/commands", body)
        return msgspec.convert(answer, CommandResult)

    async def join(
        self, table_id: str, seat: int | None = None, display_name: str = ""
    ) -> CommandResult:
        """Take a seat (0, 1 or the first free one) or join a chouette's line."""
        command: dict[str, Any] = {"type": "join", "display_name": display_name}
        if seat is not None:
            command["seat"] = seat
        return await self.send(table_id, command)

    async def roll(self, table_id: str) -> CommandResult:
        """Throw the dice (the opening throw too)."""
        return await self.send(table_id, {"type": "roll"})

    async def move(self, table_id: str, play: Any) -> CommandResult:
        """Play ``play``: a :class:`~client.plays.Play`, its notation, or ``[from, to]`` moves."""
        if isinstance(play, str):
            return await self.send(table_id, {"type": "move", "notation": play})
        moves = play.moves if hasattr(play, "moves") else play
        return await self.send(table_id, {"type": "move", "moves": [list(m) for m in moves]})

    # -- the live stream ------------------------------------------------------------------

    def _ws_url(self, table_id: str, after: int, chat_after: int) -> str:
        parts = urlsplit(self.url)
        scheme = "wss" if parts.scheme == "https" else "ws"
        path = f"{parts.path}/tables/{table_id}/ws"
        query = f"after={after}&chat_after={chat_after}"
        return urlunsplit((scheme, parts.netloc, path, query, ""))

    async def follow(
        self,
        table_id: str,
        after: int = 0,
        chat_after: int = 0,
        *,
        presence: bool = False,
    ) -> AsyncIterator[EventMessage | Resynced | Presence]:
        """The table's events after ``after`` (table stream) and ``chat_after`` (chat), live,
        each once and in order per stream, for as long as the caller iterates.

        A dropped connection is reconnected (after ``backoff``, doubling up to 5 s) and
        resumed after the last version seen of each stream. When the server cannot resume a
        stream (the position is too far back, or ahead), a :class:`~client.messages.Resynced`
        is yielded with the table's view as it is now, and the stream goes on from there.
        ``presence``: also yield who is connected as it changes.

        >>> async def watch(c: Client, table: str) -> None:  # doctest: +SKIP
        ...     async for msg in c.follow(table):
        ...         print(msg.v, msg.t)
        """
        versions = {"table": after, "chat": chat_after}
        wait = self.backoff
        while True:
            url = self._ws_url(table_id, versions["table"], versions["chat"])
            resync: Resync | None = None
            try:
                async with self.session.ws_connect(url, headers=self._headers()) as ws:
                    async for frame in ws:
                        if frame.type not in (aiohttp.WSMsgType.TEXT, aiohttp.WSMsgType.BINARY):
                            break
                        wait = self.backoff
                        raw = msgspec.json.decode(frame.data)
                        if "ctl" in raw:
                            control = msgspec.convert(raw, AnyControl)
                            if isinstance(control, Resync):
                                resync = control
                                break
                            if isinstance(control, Presence) and presence:
                                yield control
                            continue
                        msg = msgspec.convert(raw, EventMessage)
                        last = versions[msg.s]
                        if msg.v <= last:
                            continue  # never sent twice; guarded all the same
                        if msg.v != last + 1:
                            raise ProtocolError(f"{msg.s} stream skipped from {last} to {msg.v}")
                        versions[msg.s] = msg.v
                        yield msg
            except aiohttp.WSServerHandshakeError as exc:
                if exc.status < 500 and exc.status != 429:
                    raise ApiError(
                        Problem(
                            type=f"about:blank#{exc.status}",
                            title="refused",
                            status=exc.status,
                            detail=exc.message,
                        )
                    ) from exc
            except _RETRIED:
                pass
            if resync is not None:
                view = await self.table(table_id)
                version = view["version"] if resync.stream == "table" else resync.version
                versions[resync.stream] = int(version)
                yield Resynced(
                    stream=resync.stream, version=int(version), view=view, reason=resync.reason
                )
                continue
            await asyncio.sleep(wait)
            wait = min(wait * 2, 5.0)


def _retry_after(header: str | None, default: float) -> float:
    """A ``Retry-After`` of seconds (the server's form), else ``default``."""
    if header is not None:
        with contextlib.suppress(ValueError):
            return max(0.0, float(header))
    return default


def _problem(status: int, raw: bytes) -> Problem:
    try:
        return msgspec.json.decode(raw, type=Problem)
    except (msgspec.DecodeError, msgspec.ValidationError):
        text = raw.decode("utf-8", "replace")[:200]
        return Problem(type="about:blank", title="error", status=status, detail=text)
