"""The Prometheus registry's histogram: each observation counted in the buckets whose bound it
does not exceed, cumulative as rendered."""

from __future__ import annotations

from server.metrics import Histogram


def _buckets(lines: list[str]) -> dict[str, float]:
    out = {}
    for line in lines:
        if line.startswith("h_bucket"):
            name, _, value = line.rpartition(" ")
            out[name.split('le="')[1].split('"')[0]] = float(value)
    return out


def test_a_histogram_counts_each_value_in_every_bucket_it_fits() -> None:
    h = Histogram("h", "a test histogram", buckets=(0.1, 0.5, 1.0))
    for value in (0.05, 0.1, 0.2, 0.5, 0.7, 1.0, 3.0, 0.0):
        h.observe(value, kind="x")
    h.observe(0.3, kind="y")
    lines = h.render()
    # A bound includes its own value (Prometheus' "le").
    assert _buckets([ln for ln in lines if 'kind="x"' in ln]) == {
        "0.1": 3,
        "0.5": 5,
        "1.0": 7,
        "+Inf": 8,
    }
    assert 'h_count{kind="x"} 8' in lines
    assert any(ln.startswith('h_sum{kind="x"} 5.55') for ln in lines)
    assert _buckets([ln for ln in lines if 'kind="y"' in ln]) == {
        "0.1": 0,
        "0.5": 1,
        "1.0": 1,
        "+Inf": 1,
    }


def test_a_histogram_without_labels() -> None:
    h = Histogram("h", "a test histogram", buckets=(1.0, 2.0))
    h.observe(1.5)
    h.observe(2.5)
    assert _buckets(h.render()) == {"1.0": 0, "2.0": 1, "+Inf": 2}
