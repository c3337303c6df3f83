"""Summary statistics used by every benchmark (one place for each formula)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def latency_summary(values_ms: Sequence[float]) -> dict[str, float]:
    """Median and 95th percentile (linear interpolation, numpy's default) in ms, and the
    count. Empty input gives zeros."""
    if not len(values_ms):
        return {"n": 0, "median_ms": 0.0, "p95_ms": 0.0}
    arr = np.asarray(values_ms, dtype=float)
    return {
        "n": int(arr.size),
        "median_ms": round(float(np.median(arr)), 3),
        "p95_ms": round(float(np.percentile(arr, 95)), 3),
    }


def mean(values: Sequence[float]) -> float:
    """Arithmetic mean, 0.0 for no values."""
    return float(np.mean(values)) if len(values) else 0.0
