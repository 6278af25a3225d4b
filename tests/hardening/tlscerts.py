"""Certificates made at test time (``cryptography``): a CA, a server, good and bad clients.

Nothing is committed: every run makes fresh keys in a temporary folder, so no test key can leak into a
deployment and none expires in CI.
"""

from __future__ import annotations

import datetime
import ipaddress
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

SERVER_NAME = "localhost"
"""The name the server's certificate is for (clients connect to 127.0.0.1 and override the name)."""


@dataclass(frozen=True)
class Pair:
    """A certificate and its key, as PEM files and bytes."""

    cert: Path
    key: Path

    @property
    def cert_pem(self) -> bytes:
        return self.cert.read_bytes()

    @property
    def key_pem(self) -> bytes:
        return self.key.read_bytes()


@dataclass(frozen=True)
class Certificates:
    """Everything the TLS tests need."""

    ca: Pair
    server: Pair
    client: Pair
    rogue_ca: Pair
    rogue_client: Pair
    """Signed by a CA the server does not trust."""
    expired_client: Pair
    """Signed by the right CA, but its validity ended yesterday."""


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def _write(folder: Path, stem: str, cert: x509.Certificate, key: ec.EllipticCurvePrivateKey) -> Pair:
    pair = Pair(folder / f"{stem}.crt", folder / f"{stem}.key")
    pair.cert.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    pair.key.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    pair.key.chmod(0o600)
    return pair


def _ca(folder: Path, stem: str) -> tuple[Pair, x509.Certificate, ec.EllipticCurvePrivateKey]:
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(_name(f"tractor-rules test {stem}"))
        .issuer_name(_name(f"tractor-rules test {stem}"))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .sign(key, hashes.SHA256())
    )
    return _write(folder, stem, cert, key), cert, key


def _leaf(
    folder: Path,
    stem: str,
    issuer: tuple[x509.Certificate, ec.EllipticCurvePrivateKey],
    *,
    server: bool,
    expired: bool = False,
) -> Pair:
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.UTC)
    start, end = (
        (now - datetime.timedelta(days=3), now - datetime.timedelta(days=1))
        if expired
        else (
            now - datetime.timedelta(days=1),
            now + datetime.timedelta(days=2),
        )
    )
    builder = (
        x509.CertificateBuilder()
        .subject_name(_name(SERVER_NAME if server else f"game-backend {stem}"))
        .issuer_name(issuer[0].subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(end)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.ExtendedKeyUsage(
                [ExtendedKeyUsageOID.SERVER_AUTH if server else ExtendedKeyUsageOID.CLIENT_AUTH]
            ),
            critical=False,
        )
    )
    if server:
        builder = builder.add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName(SERVER_NAME), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
    return _write(folder, stem, builder.sign(issuer[1], hashes.SHA256()), key)


def make(folder: Path) -> Certificates:
    """Fresh certificates in ``folder``."""
    ca, ca_cert, ca_key = _ca(folder, "ca")
    rogue_ca, rogue_cert, rogue_key = _ca(folder, "rogue-ca")
    return Certificates(
        ca=ca,
        server=_leaf(folder, "server", (ca_cert, ca_key), server=True),
        client=_leaf(folder, "client", (ca_cert, ca_key), server=False),
        rogue_ca=rogue_ca,
        rogue_client=_leaf(folder, "rogue-client", (rogue_cert, rogue_key), server=False),
        expired_client=_leaf(folder, "expired-client", (ca_cert, ca_key), server=False, expired=True),
    )
