"""Provably fair dice.

Each game gets a secret 32-byte seed from the operating system's CSPRNG (:func:`draw_seed`). When
the game starts the server publishes ``commitment = SHA-256(seed)`` in the game's first event;
when it ends it reveals the seed. Players may add seeds of their own before the first throw; they
are mixed into the key, so the server, having committed first, cannot choose throws after seeing
them.

The derivation (see ``docs/dice.md``, checkable with a few lines in any language)::

    key     = HMAC-SHA256(seed, "chouette-dice/v1/key" || SHA-256(c1) || SHA-256(c2) || ...)
    block k = HMAC-SHA256(key, "chouette-dice/v1/" || counter || "/" || k)   # decimal ASCII
    die     = first byte b of block 0, 1, ... with b < 252, as b mod 6 + 1

``c1, c2, ...`` are the players' seeds as UTF-8, in the order they were recorded. ``counter``
numbers the dice of a game from 0 in the order they are thrown (the opening throw's two dice are
0 and 1, a tie's re-throw 2 and 3, ...). Bytes 252..255 are rejected so each face is exactly
equally likely (252 = 6 × 42).

Why the key is an HMAC keyed by the seed, and not a plain hash of it: the commitment is public,
so a key equal to ``SHA-256(seed)`` would let anyone derive every throw from the first event of
the game; and a key ``SHA-256(seed || client seeds)`` would be open to SHA-256 length extension
(whoever knows ``SHA-256(seed)`` can hash ``seed || padding || more`` without the seed). Each
client seed is hashed on its own so that the list is unambiguous (``"ab", "c"`` is not
``"a", "bc"``).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Mapping, Sequence

DOMAIN = b"chouette-dice/v1/"
"""Prefix of every HMAC message of the derivation."""
KEY_LABEL = DOMAIN + b"key"
"""The message prefix of the key derivation."""
SEED_BYTES = 32
"""The length of a game's secret seed."""


def commitment(seed: bytes) -> str:
    """The published commitment to a seed: SHA-256, hex."""
    return hashlib.sha256(seed).hexdigest()


def game_key(seed: bytes, client_seeds: Sequence[str] = ()) -> bytes:
    """The HMAC key of a game: the server seed with the players' seeds mixed in.

    >>> game_key(bytes(32)).hex() != commitment(bytes(32))
    True
    """
    message = KEY_LABEL + b"".join(hashlib.sha256(s.encode("utf-8")).digest() for s in client_seeds)
    return hmac.new(seed, message, hashlib.sha256).digest()


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


def derive_dice(
    seed: bytes, client_seeds: Sequence[str] = (), count: int = 2, start: int = 0
) -> list[int]:
    """``count`` dice of a game from counter ``start``: what anyone can recompute once the
    seed is revealed."""
    key = game_key(seed, client_seeds)
    return [derive_die(key, n) for n in range(start, start + count)]


def verify(seed_hex: str, commitment_hex: str) -> bool:
    """Whether a revealed seed matches the published commitment."""
    try:
        seed = bytes.fromhex(seed_hex)
    except ValueError:
        return False
    return hmac.compare_digest(commitment(seed), commitment_hex)


def draw_seed() -> bytes:
    """A new game's secret seed: 32 bytes from the operating system's CSPRNG.

    Drawn by the command service *before* it decides a command that may start a game, and
    given to the decider through :class:`FairDice`; the service keeps it (``dice_seeds``) before
    the game's commitment is published.
    """
    return secrets.token_bytes(SEED_BYTES)


class FairDice:
    """The production dice source of one command: the seeds of the games it may touch, given.

    ``seeds`` holds the seed of the game in play and, for a command that may start a game, the
    next game's (drawn with :func:`draw_seed`); ``client_seeds`` the players' seeds of each game,
    in the order they were recorded. It never draws a seed itself: which seeds a command used
    is then plain to the caller, who keeps them.

    :raises LookupError: a game whose seed was not given (a bug of the caller).
    """

    def __init__(
        self, seeds: Mapping[int, bytes], client_seeds: Mapping[int, Sequence[str]]
    ) -> None:
        self._seeds = seeds
        self._client_seeds = client_seeds
        self._keys: dict[int, bytes] = {}

    def seed(self, game: int) -> bytes:
        try:
            return self._seeds[game]
        except KeyError:
            raise LookupError(f"no dice seed was given for game {game}") from None

    def commitment(self, game: int) -> str:
        return commitment(self.seed(game))

    def die(self, game: int, counter: int) -> int:
        key = self._keys.get(game)
        if key is None:
            key = self._keys[game] = game_key(self.seed(game), self._client_seeds.get(game, ()))
        return derive_die(key, counter)

    def reveal(self, game: int) -> str:
        return self.seed(game).hex()
