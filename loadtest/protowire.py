"""Protobuf wire-format encoders, for bytes no generated class would write (hostile and fuzzed input).

>>> varint(300).hex()
'ac02'
>>> delimited(2, b"ab").hex()
'12026162'
"""

from __future__ import annotations

from collections.abc import Sequence


def varint(value: int) -> bytes:
    """A protobuf varint; negative values as int64 encodes them (ten bytes)."""
    value &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def tag(number: int, wire: int) -> bytes:
    """A field's tag: its ``number`` and wire type ``wire`` (0 varint, 1 fixed64, 2 delimited, 5 fixed32)."""
    return varint(number << 3 | wire)


def field(number: int, wire: int, payload: bytes = b"") -> bytes:
    """A field's tag followed by ``payload``."""
    return tag(number, wire) + payload


def delimited(number: int, body: bytes) -> bytes:
    """A length-delimited field: a string, bytes, a sub-message or a packed list."""
    return field(number, 2, varint(len(body)) + body)


def packed(number: int, values: Sequence[int]) -> bytes:
    """A packed repeated varint field."""
    return delimited(number, b"".join(varint(value) for value in values))
