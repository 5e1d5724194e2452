"""What the layout tests (``tests/e2e/layout``) measure on a page, at a phone's size and a
laptop's: that the board and every control of the decision at hand are on the screen at once
with nothing scrolled, that nothing sticks out sideways, and that a phone's buttons are big
enough to touch (44 CSS pixels each way)."""

from __future__ import annotations

from typing import Any

from tests.e2e.pages import Player

SIZES: dict[str, dict[str, int]] = {
    "phone": {"width": 390, "height": 844},
    "laptop": {"width": 1280, "height": 800},
}
"""The two screens of issue 29, in CSS pixels."""

TOUCH = 44
"""The smallest touch target on a phone, each way (CSS pixels)."""


def page_options(size: str) -> dict[str, Any]:
    """``new_page`` options for a screen of ``SIZES`` (a phone is a touch screen)."""
    phone = size == "phone"
    return {"viewport": SIZES[size], "is_mobile": phone, "has_touch": phone}


_MEASURE = """() => {
  const root = document.documentElement;
  const box = (el) => { const r = el.getBoundingClientRect();
    return {left: r.left, top: r.top, right: r.right, bottom: r.bottom,
            width: r.width, height: r.height}; };
  const out = {scrollX, scrollY, scrollWidth: root.scrollWidth, width: root.clientWidth,
               height: innerHeight, board: null, controls: []};
  const board = document.querySelector('[data-testid="board"]');
  if (board) out.board = box(board);
  const decision = document.querySelector('[data-testid="decision"]');
  for (const el of decision ? decision.querySelectorAll('button, summary, input, select') : []) {
    const b = box(el);
    const shut = el.tagName !== 'SUMMARY' && el.closest('details:not([open])');
    if (!b.width || !b.height || shut || el.disabled) continue;  // not shown, or not usable
    out.controls.push({...b, name: el.dataset.testid || el.id || el.textContent.trim(),
                       tag: el.tagName.toLowerCase(), type: el.type || ''});
  }
  return out;
}"""


def _inside(b: dict[str, float], width: float, height: float) -> bool:
    slack = 0.5  # sub-pixel rounding
    return (
        b["left"] >= -slack
        and b["top"] >= -slack
        and b["right"] <= width + slack
        and b["bottom"] <= height + slack
    )


def expect_decision_on_screen(player: Player, size: str, needs: list[str], when: str) -> None:
    """At this moment of the game, with nothing scrolled: the whole board and every enabled
    control of the decision (status, move, actions, the box's answers) are inside the window,
    among them the controls named in ``needs`` (test ids); nothing sticks out sideways; and on
    a phone every button is at least ``TOUCH`` pixels each way."""
    m = player.page.evaluate(_MEASURE)
    where = f"{player.name} at {size}, {when}"
    assert (m["scrollX"], m["scrollY"]) == (0, 0), f"{where}: the page was scrolled: {m}"
    assert m["scrollWidth"] <= m["width"], f"{where}: {m['scrollWidth']} px wide > {m['width']}"
    assert m["board"] is not None and _inside(m["board"], m["width"], m["height"]), (
        f"{where}: the board is not all on screen: {m['board']}"
    )
    names = [c["name"] for c in m["controls"]]
    missing = [n for n in needs if n not in names]
    assert not missing, f"{where}: {missing} not offered; the controls are {names}"
    off = [c for c in m["controls"] if not _inside(c, m["width"], m["height"])]
    assert not off, f"{where}: off the screen: {off}"
    if size == "phone":
        small = [
            c
            for c in m["controls"]
            if c["tag"] in ("button", "summary") and (c["width"] < TOUCH or c["height"] < TOUCH)
        ]
        assert not small, f"{where}: buttons under {TOUCH} px: {small}"


_OVERFLOW = """() => {
  const root = document.documentElement;
  const w = root.clientWidth;
  const out = [];
  if (root.scrollWidth > w) out.push(`page ${root.scrollWidth} > ${w}`);
  for (const el of document.querySelectorAll('body *')) {
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height) continue;
    // What a scrolling box holds may run on inside it; the box itself must fit.
    // (The skip link waits off screen on purpose until it is focused; a closed menu's insides
    // are not shown.)
    let clipped = Boolean(el.closest('.skip') || el.closest('details:not([open]) > :not(summary)'));
    for (let p = el; !clipped && p && p !== document.body; p = p.parentElement) {
      const s = getComputedStyle(p);
      clipped = s.clip !== 'auto' || (p !== el && s.overflowX !== 'visible');
    }
    if (!clipped && (r.left < -1 || r.right > w + 1)) {
      const name = el.tagName.toLowerCase() + (el.dataset.testid ? '#' + el.dataset.testid : '');
      out.push(`${name} ${Math.round(r.left)}..${Math.round(r.right)}`);
    }
  }
  return out.slice(0, 12);
}"""


def sideways_overflow(player: Player) -> list[str]:
    """What sticks out past the window's width (the page's own width first); empty when
    nothing does."""
    found: list[str] = player.page.evaluate(_OVERFLOW)
    return found
