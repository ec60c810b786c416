"""TLS for servers (certificate files re-read when they change, optional mTLS) and clients."""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path

import grpc
from cryptography import x509
from cryptography.hazmat.primitives import serialization

__all__ = ["ClientTls", "ServerTls", "TlsFilesError"]

logger = logging.getLogger(__name__)


class TlsFilesError(RuntimeError):
    """The configured certificate, key or CA files are missing, unreadable or mismatched."""


def _stat(path: Path) -> tuple[int, int, int]:
    st = os.stat(path)
    return (st.st_ino, st.st_mtime_ns, st.st_size)


def _check_pair(cert_pem: bytes, key_pem: bytes) -> None:
    """ValueError unless the key belongs to the chain's first certificate.

    A rotation writes two files; between the writes they do not match, and serving that pair
    would fail every handshake, so the old pair stays until both are new.
    """
    certificate = x509.load_pem_x509_certificate(cert_pem)
    key = serialization.load_pem_private_key(key_pem, password=None)
    as_der = serialization.Encoding.DER
    spki = serialization.PublicFormat.SubjectPublicKeyInfo
    if certificate.public_key().public_bytes(as_der, spki) != key.public_key().public_bytes(
        as_der, spki
    ):
        raise ValueError("the private key does not match the certificate")


@dataclass
class ServerTls:
    """A server's certificate and key (PEM files) and, for mTLS, the CA of client certificates.

    ``credentials()`` gives gRPC dynamic credentials: before each new connection's handshake
    gRPC asks for the current files, which are re-read when their stat changed, so a renewed
    certificate (cert-manager, a rotated Secret) is served without a restart.
    """

    cert_file: Path
    key_file: Path
    client_ca_file: Path | None = None

    def __post_init__(self) -> None:
        self._seen: tuple[tuple[int, int, int], ...] | None = None

    def _files(self) -> tuple[Path, ...]:
        return tuple(p for p in (self.cert_file, self.key_file, self.client_ca_file) if p)

    def _load(self) -> grpc.ServerCertificateConfiguration:
        cert, key = self.cert_file.read_bytes(), self.key_file.read_bytes()
        _check_pair(cert, key)
        ca = self.client_ca_file.read_bytes() if self.client_ca_file else None
        return grpc.ssl_server_certificate_configuration([(key, cert)], root_certificates=ca)

    def credentials(self) -> grpc.ServerCredentials:
        """Raises TlsFilesError when the files are missing or do not match."""
        try:
            self._seen = tuple(_stat(p) for p in self._files())
            initial = self._load()
        except (OSError, ValueError) as exc:
            raise TlsFilesError(f"cannot serve TLS from {self.cert_file}: {exc}") from exc
        return grpc.dynamic_ssl_server_credentials(
            initial,
            self._fetch_if_changed,  # type: ignore[arg-type]  # None means "unchanged"
            require_client_authentication=self.client_ca_file is not None,
        )

    def _fetch_if_changed(self) -> grpc.ServerCertificateConfiguration | None:
        # Called by gRPC core on its own thread for each handshake: cheap stats, and any
        # failure keeps the configuration in use.
        try:
            seen = tuple(_stat(p) for p in self._files())
            if seen == self._seen:
                return None
            config = self._load()
        except (OSError, ValueError) as exc:
            logger.warning("tls: certificate files not reloaded: %s", exc)
            return None
        self._seen = seen
        logger.info("tls: serving the certificate from %s anew", self.cert_file)
        return config


@dataclass(frozen=True)
class ClientTls:
    """How a client verifies servers (``ca_file``; None: the system roots) and, for mTLS, which
    certificate it presents. ``server_name`` overrides the name expected in server certs."""

    ca_file: Path | None = None
    cert_file: Path | None = None
    key_file: Path | None = None
    server_name: str | None = None

    def credentials(self) -> grpc.ChannelCredentials:
        """Read when a channel opens; a long-lived channel keeps what it read."""
        return grpc.ssl_channel_credentials(
            root_certificates=self.ca_file.read_bytes() if self.ca_file else None,
            private_key=self.key_file.read_bytes() if self.key_file else None,
            certificate_chain=self.cert_file.read_bytes() if self.cert_file else None,
        )
