"""Where a request's bytes stop decoding: the path of the first malformed field.

upb refuses bad bytes with a bare "Wire format was corrupt"; a client with a broken encoder deserves
the field, like any other bad request. :func:`locate` walks the protobuf wire format with the request's
descriptor (no objects built, linear in the size, nesting bounded like upb's) and reports the first
problem. It only runs on bytes upb has already refused, so it costs nothing on the hot path.

Unknown fields are named by their number (``trick.99``), as protobuf's text format shows them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from google.protobuf.descriptor import Descriptor, FieldDescriptor

MAX_DEPTH: Final = 100
"""upb's recursion limit: messages and groups nested deeper than this do not decode."""
_VARINT_TYPES: Final = frozenset(
    {
        FieldDescriptor.TYPE_INT32,
        FieldDescriptor.TYPE_INT64,
        FieldDescriptor.TYPE_UINT32,
        FieldDescriptor.TYPE_UINT64,
        FieldDescriptor.TYPE_SINT32,
        FieldDescriptor.TYPE_SINT64,
        FieldDescriptor.TYPE_BOOL,
        FieldDescriptor.TYPE_ENUM,
    }
)
_FIXED_SIZES: Final = {
    FieldDescriptor.TYPE_FIXED32: 4,
    FieldDescriptor.TYPE_SFIXED32: 4,
    FieldDescriptor.TYPE_FLOAT: 4,
    FieldDescriptor.TYPE_FIXED64: 8,
    FieldDescriptor.TYPE_SFIXED64: 8,
    FieldDescriptor.TYPE_DOUBLE: 8,
}


@dataclass(frozen=True, slots=True)
class Malformation:
    """The first thing wrong in the bytes: the field's path ("" for the request's own framing)."""

    field: str
    offset: int
    """Byte offset in the request where the bad field (or tag) starts."""
    problem: str

    def describe(self) -> str:
        """One sentence for the error's description."""
        return f"the request does not decode: {self.problem} (byte {self.offset})"


class _FoundError(Exception):
    def __init__(self, field: str, offset: int, problem: str) -> None:
        super().__init__(problem)
        self.malformation = Malformation(field, offset, problem)


def locate(data: bytes, descriptor: Descriptor | None) -> Malformation | None:
    """The first malformed field of ``data`` read as ``descriptor``; None if the walk finds nothing.

    >>> from tractor.rules.v1 import rules_service_pb2 as pb
    >>> locate(b"\\x3a\\x05\\x08\\x01\\x12\\x09\\x0a", pb.ValidatePlayRequest.DESCRIPTOR).field
    'trick.plays[0]'
    """
    try:
        _Walker(data).walk(0, len(data), descriptor, "", depth=0, group=None)
    except _FoundError as found:
        return found.malformation
    return None


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _varint(data: bytes, pos: int, end: int, field: str, what: str) -> tuple[int, int]:
    """Decode a varint at ``pos``; raise naming ``field`` if it is truncated or longer than 10 bytes."""
    start = pos
    value = shift = 0
    while pos < end and shift < 70:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7
    raise _FoundError(field, start, f"{what} is truncated")


class _Walker:
    """One walk over one request's bytes."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def walk(
        self, pos: int, end: int, descriptor: Descriptor | None, path: str, *, depth: int, group: int | None
    ) -> int:
        """Walk the fields in ``data[pos:end]``; return where an open group ended (or ``end``)."""
        data = self.data
        seen: dict[int, int] = {}
        while pos < end:
            start = pos
            tag, pos = _varint(data, pos, end, path, "a field tag")
            number, wire = tag >> 3, tag & 7
            field = descriptor.fields_by_number.get(number) if descriptor is not None else None
            # inside an unknown group every field is unknown: keep naming the outermost one
            name = (
                path if descriptor is None else _join(path, field.name if field is not None else str(number))
            )
            if number == 0:
                raise _FoundError(name, start, "a field numbered 0")
            if wire == 0:
                _, pos = _varint(data, pos, end, name, "a varint")
            elif wire in (1, 5):
                pos += 8 if wire == 1 else 4
                if pos > end:
                    raise _FoundError(name, start, "a fixed-size value is truncated")
            elif wire == 2:
                if field is not None and field.is_repeated and field.type == FieldDescriptor.TYPE_MESSAGE:
                    seen[number] = seen.get(number, -1) + 1
                    name = f"{name}[{seen[number]}]"
                length, pos = _varint(data, pos, end, name, "a length")
                if length > end - pos:
                    raise _FoundError(name, start, f"a length of {length} bytes runs past the end")
                if field is not None:
                    self._delimited(pos, pos + length, field, name, depth=depth, start=start)
                pos += length
            elif wire == 3:
                if depth + 1 > MAX_DEPTH:
                    raise _FoundError(name, start, f"groups nested more than {MAX_DEPTH} deep")
                pos = self.walk(pos, end, None, name, depth=depth + 1, group=number)
            elif wire == 4:
                if group == number:
                    return pos
                raise _FoundError(name, start, "an end-group marker without its start")
            else:
                raise _FoundError(name, start, f"wire type {wire} does not exist")
        if group is not None:
            raise _FoundError(path, end, "a group that never ends")
        return pos

    def _delimited(
        self, pos: int, end: int, field: FieldDescriptor, name: str, *, depth: int, start: int
    ) -> None:
        """Check a length-delimited value of a known field: a message, a string or a packed list."""
        data = self.data
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            if depth + 1 > MAX_DEPTH:
                raise _FoundError(name, start, f"messages nested more than {MAX_DEPTH} deep")
            self.walk(pos, end, field.message_type, name, depth=depth + 1, group=None)
        elif field.type == FieldDescriptor.TYPE_STRING:
            try:
                data[pos:end].decode("utf-8")
            except UnicodeDecodeError:
                raise _FoundError(name, start, "a string that is not UTF-8") from None
        elif field.is_repeated and field.type in _VARINT_TYPES:
            while pos < end:
                _, pos = _varint(data, pos, end, name, "a packed value")
        elif field.is_repeated and field.type in _FIXED_SIZES and (end - pos) % _FIXED_SIZES[field.type]:
            raise _FoundError(name, start, "a packed list of fixed-size values is truncated")
