// Words for what the table view says: names for account ids, cubes, offers and results.

/** A namer for one table view: account id -> display name ("you" marked). */
export function namer(view, me) {
  const names = new Map((view.players || []).map((p) => [p.id, p.name || "?"]));
  return (id, { you = true } = {}) => {
    if (id === null || id === undefined || id === "") return "nobody";
    const name = names.get(id) || "a former player";
    return you && me && id === me ? `${name} (you)` : name;
  };
}

export const LEVELS = { 1: "a single game", 2: "a gammon", 3: "a backgammon" };
export const RESULT_WORDS = { 1: "a single game", 2: "a gammon", 3: "a backgammon" };

/** A cube in words: its value and who owns it. */
export function cubeText(cube, nameOf) {
  if (!cube) return "";
  const owner = cube.owner === null || cube.owner === undefined ? "centred" : `owned by ${nameOf(cube.owner)}`;
  return `cube at ${cube.value}, ${owner}`;
}

/** A pending double or resignation on a cube, in words. */
export function offerText(cube, nameOf) {
  const parts = [];
  if (cube.pending) {
    const p = cube.pending;
    parts.push(
      `${nameOf(p.by)} ${p.beavered ? "beavered" : "doubled"} to ${p.value}; ${nameOf(p.to_answer)} to answer`,
    );
  }
  if (cube.resignation) {
    const r = cube.resignation;
    parts.push(`${nameOf(r.by)} offers to resign ${LEVELS[r.level] || r.level}; ${nameOf(r.to_answer)} to answer`);
  }
  return parts.join("; ");
}

/** A settlement or a game's result, in words ({winner, loser?, result?, points, how});
 * `against` names the loser too (a chouette member's game against the box). */
export function settlementText(s, nameOf, { against = false } = {}) {
  if (!s) return "";
  const how = { drop: "by a dropped cube", resign: "by resignation", bear_off: "bearing off", forfeit: "by forfeit", unplayed: "" };
  const what = s.result ? `${RESULT_WORDS[s.result] || s.result} ` : "";
  const versus = against && s.loser ? ` against ${nameOf(s.loser)}` : "";
  return `${nameOf(s.winner)} won ${what}${how[s.how] || s.how || ""}${versus}, ${s.points} point${s.points === 1 ? "" : "s"}`.replace(/\s+,/, ",");
}

/** A signed amount: +3, −2 (a real minus sign), 0. */
export function signed(n) {
  if (n > 0) return `+${n}`;
  if (n < 0) return `\u2212${-n}`;
  return "0";
}

/** A place in notation: bar, off or the point number. */
export function placeText(p) {
  return p === 25 ? "bar" : p === 0 ? "off" : String(p);
}
