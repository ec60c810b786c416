"""Root logging setup: JSON lines on stderr carrying the current trace and span ids."""

from __future__ import annotations

import json as jsonlib
import logging
import sys
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from opentelemetry import trace

__all__ = ["JsonFormatter", "configure_logging"]

_HANDLER_NAME = "rememberstack"

# Attributes every LogRecord has; anything else came from ``extra=`` and is worth emitting.
_STANDARD_ATTRS = frozenset(
    vars(logging.LogRecord("", logging.INFO, "", 0, "", None, None)).keys()
    | {"message", "asctime", "taskName"}
)


class JsonFormatter(logging.Formatter):
    """One JSON object per record: ts, level, logger, message, service, trace ids, exc_info."""

    def __init__(self, service_name: str) -> None:
        super().__init__()
        self._service_name = service_name

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "service": self._service_name,
        }
        span_context = trace.get_current_span().get_span_context()
        if span_context.is_valid:
            entry["trace_id"] = format(span_context.trace_id, "032x")
            entry["span_id"] = format(span_context.span_id, "016x")
        if record.exc_info:
            entry["exc_info"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack_info"] = self.formatStack(record.stack_info)
        for key, value in vars(record).items():
            if key not in _STANDARD_ATTRS and key not in entry:
                entry[key] = value
        return jsonlib.dumps(entry, default=str, ensure_ascii=False)


def configure_logging(
    level: str | int,
    json: bool,
    service_name: str,
    levels: Mapping[str, str] | None = None,
) -> None:
    """Install one stderr handler on the root logger; calling again replaces it, not others.

    `levels` sets chosen loggers apart from the root, e.g. ``{"rememberstack.rpc": "WARNING"}``
    to keep only failed calls of the access log.
    """
    handler = logging.StreamHandler(sys.stderr)
    handler.set_name(_HANDLER_NAME)
    if json:
        handler.setFormatter(JsonFormatter(service_name))
    else:
        handler.setFormatter(
            logging.Formatter(f"%(asctime)s %(levelname)s {service_name} %(name)s: %(message)s")
        )
    root = logging.getLogger()
    for existing in list(root.handlers):
        # Handlers others installed (pytest's capture, a host application) stay untouched.
        if existing.get_name() == _HANDLER_NAME:
            root.removeHandler(existing)
            existing.close()
    root.addHandler(handler)
    root.setLevel(level.upper() if isinstance(level, str) else level)
    for name, logger_level in (levels or {}).items():
        logging.getLogger(name).setLevel(logger_level.upper())
