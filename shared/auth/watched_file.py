"""A file re-read only when it changed, the way a mounted Kubernetes Secret changes."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

__all__ = ["WatchedFile"]


class WatchedFile:
    """Tells whether ``path`` holds new content since the last successful ``read_if_changed``.

    A Secret volume swaps a ``..data`` symlink, so the stat (which follows links) changes inode;
    an in-place edit changes mtime or size. Content is compared by digest so a touch that keeps
    the bytes is not a reload.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._stat: tuple[int, int, int] | None = None
        self._digest: bytes | None = None

    def read_if_changed(self) -> bytes | None:
        """The file's bytes when they differ from what was last returned, else None.

        Raises OSError when the file cannot be read (the caller keeps what it had).
        """
        st = os.stat(self.path)
        stat = (st.st_ino, st.st_mtime_ns, st.st_size)
        if stat == self._stat:
            return None
        data = self.path.read_bytes()
        digest = hashlib.sha256(data).digest()
        self._stat = stat
        if digest == self._digest:
            return None
        self._digest = digest
        return data
