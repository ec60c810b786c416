"""Who may call what: the server interceptor for credentials, scopes, namespaces, request
checks and admission, and the principal it hands to servicers.

Order inside one call: credential (UNAUTHENTICATED) → scope (PERMISSION_DENIED) → admission
(RESOURCE_EXHAUSTED) → request checks (INVALID_ARGUMENT) → namespaces (PERMISSION_DENIED) →
the servicer. Nothing about the request is looked at before the caller is known, and a
namespace is refused the same way whether or not it exists. Health and reflection are open.
"""

from __future__ import annotations

import contextlib
import contextvars
import inspect
import ipaddress
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import grpc
import grpc.aio
from google.protobuf.message import Message

from shared.auth.admission import AdmissionController, Limits, Ticket
from shared.auth.authenticator import Authenticator
from shared.auth.principal import Principal
from shared.auth.rpc_policy import RpcPolicy, policy_for
from shared.auth.settings import SecuritySettings
from shared.errors import FieldViolation, InvalidArgument, PermissionDenied
from shared.grpc.observability import annotate_rpc
from shared.grpc.request_guard import inspect_request
from shared.grpc.tls import ServerTls

__all__ = [
    "InsecureBindRefused",
    "SecurityInterceptor",
    "ServerSecurity",
    "current_principal",
    "is_loopback",
]

logger = logging.getLogger(__name__)

_PRINCIPAL: contextvars.ContextVar[Principal | None] = contextvars.ContextVar(
    "rememberstack_principal", default=None
)


def current_principal() -> Principal:
    """The principal of the call being served (set by SecurityInterceptor).

    Servicers read it and pass it on explicitly (e.g. as ``decided_by``); service code never
    reads it. Outside a call, or on a server without the interceptor, it is anonymous.
    """
    return _PRINCIPAL.get() or Principal.anonymous()


def _unlimited() -> AdmissionController:
    unlimited = Limits(0.0, 0, 0)
    return AdmissionController(read=unlimited, write=unlimited, watch_streams=0)


class InsecureBindRefused(RuntimeError):
    """A non-loopback address without credentials configured, and no explicit opt-out."""


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@dataclass
class ServerSecurity:
    """Everything a server enforces; ``authenticator`` None means it runs open."""

    authenticator: Authenticator | None
    admission: AdmissionController
    tls: ServerTls | None
    allow_unauthenticated: bool = False

    @classmethod
    def from_settings(cls, settings: SecuritySettings) -> ServerSecurity:
        """Admission limits apply per credential, so only when credentials are configured:
        an open server's one anonymous caller is the local user, limited by nobody else."""
        s = settings
        tls = None
        if s.tls_cert_file and s.tls_key_file:
            tls = ServerTls(s.tls_cert_file, s.tls_key_file, s.tls_client_ca_file)
        authenticator = Authenticator.from_settings(s)
        admission = _unlimited()
        if authenticator is not None:
            admission = AdmissionController(
                read=Limits(
                    s.admission_read_rps, s.admission_read_burst, s.admission_read_in_flight
                ),
                write=Limits(
                    s.admission_write_rps, s.admission_write_burst, s.admission_write_in_flight
                ),
                watch_streams=s.admission_watch_streams,
            )
        return cls(authenticator, admission, tls, s.allow_unauthenticated)

    @classmethod
    def open(cls) -> ServerSecurity:
        """No credentials, no TLS, no limits: in-process tests and the loopback default."""
        return cls(None, _unlimited(), None)

    def check_bind(self, host: str) -> None:
        """Refuse to serve open on an address other machines can reach, unless allowed."""
        if self.authenticator is None and not self.allow_unauthenticated and not is_loopback(host):
            raise InsecureBindRefused(
                f"refusing to serve {host} without credentials: configure"
                " REMEMBERSTACK_AUTH_API_KEYS_FILE or a JWKS, or set"
                " REMEMBERSTACK_ALLOW_UNAUTHENTICATED=true to run open on purpose"
            )


class _Undecodable:
    """Stands in for a request whose bytes do not parse, so the call can answer
    INVALID_ARGUMENT instead of gRPC's own INTERNAL for a failed deserializer."""

    def __init__(self, error: str) -> None:
        self.error = error


def _tolerant(deserializer: Callable[[bytes], Any] | None) -> Callable[[bytes], Any] | None:
    if deserializer is None:
        return None

    def deserialize(data: bytes) -> Any:
        try:
            return deserializer(data)
        except Exception as exc:
            return _Undecodable(type(exc).__name__)

    return deserialize


def _metadata_value(metadata: Sequence[tuple[str, Any]] | None, key: str) -> str | None:
    for name, value in metadata or ():
        if name == key and isinstance(value, str):
            return value
    return None


class SecurityInterceptor(grpc.aio.ServerInterceptor):
    """Enforces a ServerSecurity on every RPC except health and reflection.

    Must come after the error-mapping interceptor, which turns what this one raises into rich
    statuses.
    """

    def __init__(self, security: ServerSecurity, default_namespace: str) -> None:
        self._security = security
        self._default_namespace = default_namespace

    async def intercept_service(
        self,
        continuation: Callable[
            [grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any] | None]
        ],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        handler = await continuation(handler_call_details)
        if handler is None:
            return None
        policy = policy_for(handler_call_details.method)
        if policy is None:
            return handler
        authorization = _metadata_value(handler_call_details.invocation_metadata, "authorization")
        call = _Call(self, policy, authorization)
        deserializer = _tolerant(handler.request_deserializer)
        serializer = handler.response_serializer
        if handler.request_streaming and handler.response_streaming:
            return grpc.stream_stream_rpc_method_handler(
                call.stream_response(handler.stream_stream, streamed_request=True),
                request_deserializer=deserializer,
                response_serializer=serializer,
            )
        if handler.request_streaming:
            return grpc.stream_unary_rpc_method_handler(
                call.unary_response(handler.stream_unary, streamed_request=True),
                request_deserializer=deserializer,
                response_serializer=serializer,
            )
        if handler.response_streaming:
            return grpc.unary_stream_rpc_method_handler(
                call.stream_response(handler.unary_stream, streamed_request=False),
                request_deserializer=deserializer,
                response_serializer=serializer,
            )
        return grpc.unary_unary_rpc_method_handler(
            call.unary_response(handler.unary_unary, streamed_request=False),
            request_deserializer=deserializer,
            response_serializer=serializer,
        )

    def admit(self, policy: RpcPolicy, authorization: str | None) -> tuple[Principal, Ticket]:
        authenticator = self._security.authenticator
        if authenticator is None:
            principal = Principal.anonymous()
        else:
            principal = authenticator.authenticate(authorization)
            if not principal.has_scope(policy.scope):
                raise PermissionDenied(
                    f"this credential lacks the {policy.scope!r} scope this call needs",
                    metadata={"required_scope": policy.scope},
                )
        annotate_rpc(principal=principal.name)  # the access-log line names who called
        ticket = self._security.admission.admit(principal.name, policy.admission)
        return principal, ticket

    def check(self, message: object, principal: Principal, prefix: str = "") -> None:
        """Validate one request message and the namespaces it names."""
        if isinstance(message, _Undecodable):
            raise InvalidArgument(
                [FieldViolation(prefix.rstrip(".") or "request", "is not a valid message")]
            )
        if not isinstance(message, Message):
            return
        facts = inspect_request(message, prefix)
        facts.violations.raise_if_any()
        for namespace in sorted(facts.namespaces):
            resolved = namespace or self._default_namespace
            if not principal.may_touch(resolved):
                raise PermissionDenied(f"this credential may not use namespace {resolved!r}")


def _stream_item_prefix(message: object, index: int) -> tuple[object, str]:
    """A streamed request that wraps one message (``{document: …}``) is reported the way the
    servicer names it: ``documents[3].title``."""
    if isinstance(message, Message):
        fields = message.ListFields()
        if len(fields) == 1 and isinstance(fields[0][1], Message):
            name = fields[0][0].name
            return fields[0][1], f"{name}s[{index}]."
    return message, f"requests[{index}]."


class _Call:
    """The wrapped behaviours of one RPC."""

    def __init__(
        self, owner: SecurityInterceptor, policy: RpcPolicy, authorization: str | None
    ) -> None:
        self._owner = owner
        self._policy = policy
        self._authorization = authorization

    def _request(self, request: Any, principal: Principal, streamed: bool) -> Any:
        if not streamed:
            self._owner.check(request, principal)
            return request
        owner = self._owner

        async def checked() -> AsyncIterator[Any]:
            index = 0
            async for message in request:
                inner, prefix = _stream_item_prefix(message, index)
                owner.check(inner, principal, prefix)
                index += 1
                yield message

        return checked()

    def unary_response(self, behavior: Any, *, streamed_request: bool) -> Any:
        async def unary(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            principal, ticket = self._owner.admit(self._policy, self._authorization)
            token = _PRINCIPAL.set(principal)
            try:
                checked = self._request(request, principal, streamed_request)
                result = behavior(checked, context)
                return await result if inspect.isawaitable(result) else result
            finally:
                ticket.release()
                _PRINCIPAL.reset(token)

        return unary

    def stream_response(self, behavior: Any, *, streamed_request: bool) -> Any:
        writes_itself = inspect.iscoroutinefunction(behavior)

        async def stream(
            request: Any, context: grpc.aio.ServicerContext[Any, Any]
        ) -> AsyncIterator[Any]:
            principal, ticket = self._owner.admit(self._policy, self._authorization)
            token = _PRINCIPAL.set(principal)
            try:
                checked = self._request(request, principal, streamed_request)
                if writes_itself:
                    await behavior(checked, context)
                else:
                    async for response in behavior(checked, context):
                        yield response
            finally:
                ticket.release()
                # A stream closed from another task (cancellation) cannot reset its token;
                # the call's context ends with it anyway.
                with contextlib.suppress(ValueError):
                    _PRINCIPAL.reset(token)

        return stream
