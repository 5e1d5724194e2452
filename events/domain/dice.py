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

The seeds of the games in play are kept encrypted (:class:`SeedCipher`, AES-256-GCM with a key
from the server's configuration), so that a copy of the database does not tell anyone the dice
to come.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
from collections.abc import Mapping, Sequence

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

DOMAIN = b"chouette-dice/v1/"
"""Prefix of every HMAC message of the derivation."""
KEY_LABEL = DOMAIN + b"key"
"""The message prefix of the key derivation."""
SEED_BYTES = 32
"""The length of a game's secret seed."""
SEED_KEY_BYTES = 32
"""The length of the key that seals kept seeds (AES-256)."""
NONCE_BYTES = 12
"""The length of a sealed seed's random nonce (AES-GCM's standard nonce)."""
SEAL_LABEL = b"chouette-seed/v1/"
"""The prefix of a sealed seed's associated data (then the table id, ``/`` and the game)."""


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
        # hmac.digest: the same HMAC-SHA256 as hmac.new(...).digest(), in one call without
        # the HMAC object (an audit derives every die of every game again).
        digest = hmac.digest(key, DOMAIN + f"{counter}/{block}".encode(), "sha256")
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
    next game's (drawn with :func:`draw_seed`); the players' seeds of a game come with each
    die asked for (the decider knows them from the table's events). It never draws a seed
    itself: which seeds a command used is then plain to the caller, who keeps them.

    :raises LookupError: a game whose seed was not given (a bug of the caller).
    """

    def __init__(self, seeds: Mapping[int, bytes]) -> None:
        self._seeds = seeds
        self._keys: dict[tuple[int, tuple[str, ...]], bytes] = {}

    def seed(self, game: int) -> bytes:
        try:
            return self._seeds[game]
        except KeyError:
            raise LookupError(f"no dice seed was given for game {game}") from None

    def commitment(self, game: int) -> str:
        return commitment(self.seed(game))

    def die(self, game: int, counter: int, clients: Sequence[str] = ()) -> int:
        cache = (game, tuple(clients))
        key = self._keys.get(cache)
        if key is None:
            key = self._keys[cache] = game_key(self.seed(game), clients)
        return derive_die(key, counter)

    def reveal(self, game: int) -> str:
        return self.seed(game).hex()


def new_seed_key() -> bytes:
    """A new key for sealing kept seeds: 32 bytes from the operating system's CSPRNG."""
    return secrets.token_bytes(SEED_KEY_BYTES)


def encode_seed_key(key: bytes) -> str:
    """A seed key as configured (``CHOUETTE_SEED_KEY`` and the key file): standard base64.

    >>> encode_seed_key(bytes(32))
    'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA='
    """
    return base64.b64encode(key).decode("ascii")


def decode_seed_key(text: str) -> bytes:
    """A configured seed key: base64 of exactly 32 bytes (surrounding blanks ignored).

    >>> decode_seed_key(" AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\\n") == bytes(32)
    True

    :raises ValueError: not base64, or not 32 bytes.
    """
    try:
        key = base64.b64decode(text.strip(), validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("the seed key must be base64 (of 32 random bytes)") from None
    if len(key) != SEED_KEY_BYTES:
        raise ValueError(f"the seed key must be {SEED_KEY_BYTES} bytes, not {len(key)}")
    return key


class SeedCipher:
    """Seals the secret seeds kept for games in play: AES-256-GCM (authenticated encryption).

    A sealed seed is ``nonce || ciphertext || tag``: a fresh random 12-byte nonce each time, and
    the table and game as associated data, so a sealed seed opens only for the game it was
    sealed for (moving a row to another game is detected, not obeyed).

    >>> cipher = SeedCipher(bytes(32))
    >>> sealed = cipher.seal("t1", 3, bytes(range(32)))
    >>> len(sealed), cipher.open("t1", 3, sealed) == bytes(range(32))
    (60, True)
    >>> cipher.open("t1", 4, sealed)
    Traceback (most recent call last):
    ...
    ValueError: the sealed seed does not open with this key for this table and game
    """

    def __init__(self, key: bytes) -> None:
        if len(key) != SEED_KEY_BYTES:
            raise ValueError(f"the seed key must be {SEED_KEY_BYTES} bytes, not {len(key)}")
        self._aead = AESGCM(key)

    def __repr__(self) -> str:
        return "SeedCipher(<key>)"  # never the key

    @staticmethod
    def _associated(table_id: str, game: int) -> bytes:
        return SEAL_LABEL + table_id.encode("utf-8") + b"/" + str(game).encode("ascii")

    def seal(self, table_id: str, game: int, seed: bytes) -> bytes:
        """``seed`` encrypted for ``table_id``'s game ``game``."""
        nonce = secrets.token_bytes(NONCE_BYTES)
        return nonce + self._aead.encrypt(nonce, seed, self._associated(table_id, game))

    def open(self, table_id: str, game: int, sealed: bytes) -> bytes:
        """The seed sealed by :meth:`seal` for this table and game.

        :raises ValueError: another key, another table or game, or changed bytes.
        """
        nonce, body = sealed[:NONCE_BYTES], sealed[NONCE_BYTES:]
        try:
            return self._aead.decrypt(nonce, body, self._associated(table_id, game))
        except (InvalidTag, ValueError):
            raise ValueError(
                "the sealed seed does not open with this key for this table and game"
            ) from None
