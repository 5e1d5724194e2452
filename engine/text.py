"""A readable text board, for logs, the CLI and error messages."""

from __future__ import annotations

from engine.position import BAR, Position


def board_text(position: Position) -> str:
    return position.position_id()
