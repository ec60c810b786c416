"""The mixed-load plot: read latency, queue backlog and memory over the run, one column per run
(the newest `MAX_COLUMNS` runs; the report's tables keep every run)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["PLOT", "plot"]

PLOT = Path(__file__).resolve().parent / "plots" / "load_mixed.png"
_WINDOW_SECONDS = 5
MAX_COLUMNS = 4


def _windows(
    seconds: list[dict[str, Any]], rpc: str
) -> tuple[list[float], list[float], list[float]]:
    """p50 and p99 of `rpc` over consecutive windows of the per-second samples."""
    xs, p50, p99 = [], [], []
    for begin in range(0, len(seconds), _WINDOW_SECONDS):
        part = seconds[begin : begin + _WINDOW_SECONDS]
        values = [v for s in part for v in s["latency_ms"].get(rpc, [])]
        if values:
            xs.append(part[-1]["t"])
            p50.append(float(np.percentile(values, 50)))
            p99.append(float(np.percentile(values, 99)))
    return xs, p50, p99


def plot(runs: dict[str, Any]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # Runs recorded before `finished_at` existed count as oldest, in label order.
    newest = sorted(runs, key=lambda label: (runs[label].get("finished_at", ""), label))
    labels = sorted(newest[-MAX_COLUMNS:])
    fig, axes = plt.subplots(3, len(labels), figsize=(5.5 * len(labels), 9), squeeze=False)
    for column, label in enumerate(labels):
        run = runs[label]
        seconds = run["per_second"]
        top, middle, bottom = axes[0][column], axes[1][column], axes[2][column]
        for rpc, colour in (("FactsContext", "tab:blue"), ("ClaimsAndSourcesContext", "tab:red")):
            xs, p50, p99 = _windows(seconds, rpc)
            top.plot(xs, p50, "-", color=colour, label=f"{rpc} p50")
            top.plot(xs, p99, ":", color=colour, label=f"{rpc} p99")
            target = run["rpcs"].get(rpc, {}).get("target_p99_ms")
            if target:
                top.axhline(target, color=colour, alpha=0.3, linewidth=3)
        top.set_yscale("log")
        top.set_ylabel(f"ms per {_WINDOW_SECONDS} s window")
        top.set_title(
            f"{label}: {run['readers']} readers, think {run['think_ms']:g} ms,"
            f" {'pipeline ingesting' if run.get('writer', True) else 'no writer'}"
            " (bands: p99 targets)",
            fontsize=9,
        )
        top.legend(fontsize=7)
        ts = [s["t"] for s in seconds]
        kinds = sorted({k for s in seconds for k in s["backlog"]})
        for kind in kinds:
            middle.plot(ts, [s["backlog"].get(kind, 0) for s in seconds], label=kind)
        middle.set_ylabel("work items waiting")
        middle.legend(fontsize=7)
        names = sorted({n for s in seconds for n in s["rss_mib"]})
        for name in names:
            bottom.plot(ts, [s["rss_mib"].get(name, 0) for s in seconds], label=name)
        bottom.set_ylabel("RSS MiB (process tree)")
        bottom.set_xlabel("seconds into the mixed load")
        bottom.legend(fontsize=7)
        for ax in (top, middle, bottom):
            ax.grid(True, alpha=0.3)
    fig.tight_layout()
    PLOT.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(PLOT, dpi=100)
    plt.close(fig)
