"""Which role the server runs as (issue 12; docs/store.md, "Roles"): never a superuser unless
told to, migrated by the owner, served as the server's role."""

from __future__ import annotations

import asyncio
import os
import subprocess
from collections.abc import Awaitable, Callable

import asyncpg
import pytest
from aiohttp import web

from events.store.embedded import EmbeddedPostgres, with_user
from events.store.roles import SERVER_ROLE
from server.app import create_app
from server.config import Config
from server.database import SuperuserRefusedError, server_database_url
from server.keys import TABLES
from tests.server.conftest import PYTHON, ROOT, Api, free_port, make_config

TEST_SERVER_ROLE = "chouette_test_server"


def _serve(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environ = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "CHOUETTE_OWNER_DATABASE_URL", "CHOUETTE_ALLOW_SUPERUSER")
    }
    environ["PYTHONPATH"] = str(ROOT)
    environ.update(env or {})
    return subprocess.run(
        [PYTHON, "-m", "server", "serve", "--port", str(free_port()), *args],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=60,
    )


async def test_serve_refuses_a_superuser_in_one_line_with_exit_code_2(owner_url: str) -> None:
    done = await asyncio.to_thread(_serve, "--database-url", owner_url)

    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("chouette serve: DATABASE_URL logs in as postgres, a superuser")
    assert "--allow-superuser" in lines[0]
    assert "Traceback" not in done.stderr and "listening" not in done.stdout


async def test_a_superuser_is_refused_before_anything_is_served(owner_url: str) -> None:
    runner = web.AppRunner(create_app(make_config(owner_url)))
    try:
        with pytest.raises(SuperuserRefusedError, match="--allow-superuser"):
            await runner.setup()
    finally:
        await runner.cleanup()


async def test_a_superuser_is_served_when_allowed(
    owner_url: str, make_api: Callable[..., Awaitable[Api]]
) -> None:
    api = await make_api(database_url=owner_url, allow_superuser=True)

    assert (await api.request("GET", "/readyz")).status == 200
    assert await api.app[TABLES].store.pool.fetchval("SELECT current_user") == "postgres"  # type: ignore[index]


def test_allow_superuser_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHOUETTE_ALLOW_SUPERUSER", "1")
    monkeypatch.setenv("CHOUETTE_OWNER_DATABASE_URL", "postgresql://owner@db/chouette")
    config = Config.from_env()
    assert config.allow_superuser
    assert config.owner_database_url == "postgresql://owner@db/chouette"
    monkeypatch.setenv("CHOUETTE_ALLOW_SUPERUSER", "0")
    assert not Config.from_env().allow_superuser


async def test_serve_migrates_as_the_owner_then_serves_as_the_server_role(
    empty_db: str, make_api: Callable[..., Awaitable[Api]]
) -> None:
    server = with_user(empty_db, TEST_SERVER_ROLE)

    api = await make_api(database_url=server, owner_database_url=empty_db)

    guest = await api.guest()
    table = await api.create_table(guest)
    assert (await api.state(table))["id"] == table
    store = api.app[TABLES].store  # type: ignore[index]
    assert await store.pool.fetchval("SELECT current_user") == TEST_SERVER_ROLE
    assert await store.pool.fetchval("SELECT count(*) FROM schema_migrations") == len(
        list((ROOT / "sql").glob("*.sql"))
    )


async def test_serve_as_the_server_role_on_a_database_not_migrated_says_what_to_do(
    empty_db: str,
) -> None:
    done = await asyncio.to_thread(_serve, "--database-url", with_user(empty_db, TEST_SERVER_ROLE))

    assert done.returncode == 2, done.stderr
    [line] = done.stderr.strip().splitlines()
    assert "run `chouette migrate` as the tables' owner" in line


@pytest.mark.embedded
async def test_the_embedded_default_serves_as_the_server_role(
    embedded_server: EmbeddedPostgres,
) -> None:
    url = await server_database_url(Config(database_url=None, data_dir=embedded_server.data_dir))

    conn = await asyncpg.connect(url)
    try:
        assert await conn.fetchval("SELECT current_user") == SERVER_ROLE
        assert not await conn.fetchval(
            "SELECT rolsuper FROM pg_roles WHERE rolname = $1", SERVER_ROLE
        )
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await conn.execute("ALTER TABLE events DISABLE TRIGGER ALL")
    finally:
        await conn.close()
