"""Provably fair dice.

Each game gets a secret 32-byte seed from the operating system's CSPRNG. When the game starts the
server publishes ``commitment = SHA-256(seed)`` in the game's first event; when it ends it
reveals the seed. Players may add seeds of their own before the first throw; they are mixed into
the key, so the server, having committed first, cannot choose throws after seeing them.

The derivation (see ``docs/dice.md``, checkable with a few lines in any language)::

    key     = SHA-256(seed || client_seed_1 || ... )        # client seeds as UTF-8, in event order
    block k = HMAC-SHA256(key, "chouette-dice/v1/" || counter || "/" || k)   # decimal ASCII
    die     = first byte b of block 0, 1, ... with b < 252, as b mod 6 + 1

``counter`` numbers the dice of a game from 0 in the order they are thrown (the opening throw's
two dice are 0 and 1). Bytes 252..255 are rejected so each face is exactly equally likely
(252 = 6 × 42).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence

DOMAIN = b"chouette-dice/v1/"


def commitment(seed: bytes) -> str:
    """The published commitment to a seed: SHA-256, hex."""
    return hashlib.sha256(seed).hexdigest()


def game_key(seed: bytes, client_seeds: Sequence[str] = ()) -> bytes:
    """The HMAC key of a game: the server seed with the players' seeds mixed in."""
    h = hashlib.sha256(seed)
    for s in client_seeds:
        h.update(s.encode("utf-8"))
    return h.digest()


def derive_die(key: bytes, counter: int) -> int:
    """The ``counter``-th die of a game with this key, by HMAC-SHA256 and rejection sampling.

    >>> derive_die(game_key(bytes(32)), 0) in range(1, 7)
    True
    """
    block = 0
    while True:
        digest = hmac.new(key, DOMAIN + f"{counter}/{block}".encode(), hashlib.sha256).digest()
        for b in digest:
            if b < 252:
                return b % 6 + 1
        block += 1


def verify(seed_hex: str, commitment_hex: str) -> bool:
    """Whether a revealed seed matches the published commitment."""
    try:
        seed = bytes.fromhex(seed_hex)
    except ValueError:
        return False
    return hmac.compare_digest(commitment(seed), commitment_hex)


class FairDice:
    """The production dice source for one table: a fresh secret seed per game.

    Seeds are held by the caller's :class:`SeedVault` so they survive a restart without being
    in the public event stream until the game ends.
    """

    def __init__(self, seeds: dict[int, bytes], client_seeds: dict[int, list[str]]) -> None:
        self._seeds = seeds
        self._client_seeds = client_seeds

    def seed(self, game: int) -> bytes:
        if game not in self._seeds:
            self._seeds[game] = secrets.token_bytes(32)
        return self._seeds[game]

    def commitment(self, game: int) -> str:
        return commitment(self.seed(game))

    def die(self, game: int, counter: int) -> int:
        return derive_die(game_key(self.seed(game), self._client_seeds.get(game, ())), counter)

    def reveal(self, game: int) -> str:
        return self.seed(game).hex()
