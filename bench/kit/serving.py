"""What the benchmarks that start a server process share: a free port, and waiting until it
answers ``/readyz``."""

from __future__ import annotations

import asyncio
import socket

import aiohttp


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def wait_ready(url: str, what: str = "the server") -> None:
    """Until ``url``/readyz answers 200 (30 s at most)."""
    async with aiohttp.ClientSession() as s:
        for _ in range(300):
            try:
                async with s.get(f"{url}/readyz") as r:
                    if r.status == 200:
                        return
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.1)
    raise RuntimeError(f"{what} did not start")
