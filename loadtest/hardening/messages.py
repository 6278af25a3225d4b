"""Seeded request generation for the fuzzer: random, boundary, inconsistent and corrupted messages.

Everything is driven by the protobuf descriptors, so a field added to the contract is fuzzed without a
change here. Five kinds of case, mixed by :data:`MIX`:

* ``valid``: a corpus request as is (it must be answered OK);
* ``random``: a message of the method's type with random fields, values drawn from the boundaries
  (0, the last defined enum number and the next, 2**31 - 1, -1 in an enum, 2**64 - 1, lists of 0, 25,
  108, 109 or 10,000 cards, strings of 1000 characters);
* ``mutant``: a corpus request with one to four fields changed that way (a nearly right request gets
  much deeper into the engine than a random one);
* ``inconsistent``: structurally valid pieces that do not belong together: fields spliced in from
  another hand, lists moved between fields, seats rotated, plays swapped, tricks reordered;
* ``bytes``: a corpus request's encoding flipped, truncated, spliced, given unknown or deeply nested
  fields, or (rarely) padded past the message size limit.

A generator is deterministic: the same seed and corpus give the same cases in the same order, at a few
tens of microseconds each (no Hypothesis here: a CI run needs 100,000 of them in about a minute).
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import DecodeError, Message

from loadtest.contract import REQUESTS
from loadtest.protowire import tag, varint
from loadtest.replay import Call
from services.config import MAX_MESSAGE_BYTES
from tractor.rules.v1 import types_pb2 as t

KINDS: Final = ("valid", "random", "mutant", "inconsistent", "bytes")
MIX: Final = (3, 15, 42, 27, 13)
"""Weights of :data:`KINDS`, in percent."""
OVERSIZE_RATE: Final = 1 / 5000
"""Share of ``bytes`` cases padded past the server's message size limit (they cost megabytes each)."""
OVERSIZE_BYTES: Final = MAX_MESSAGE_BYTES + 4096
"""Just past the default message size limit."""

UINT32: Final = (
    0,
    1,
    2,
    3,
    4,
    5,
    7,
    8,
    12,
    13,
    14,
    15,
    25,
    26,
    33,
    99,
    100,
    101,
    1000,
    1001,
    2**31 - 1,
    2**32 - 1,
)
UINT64: Final = (0, 1, 8, 100, 10**12, 10**12 + 1, 2**53, 2**63 - 1, 2**63, 2**64 - 1)
STRINGS: Final = (
    "",
    "default",
    "rulebook-000",
    "rulebook-003",
    "rulebook-999",
    "DEFAULT",
    " default",
    "default\x00",
    "拖拉机",
    "x" * 1000,
)
LIST_SIZES: Final = (0, 0, 1, 1, 2, 3, 4, 5, 8, 9, 25, 26, 33, 34)
BIG_LIST_SIZES: Final = (107, 108, 109, 1000, 10_000)
INT32_MAX: Final = 2**31 - 1
CARD: Final = t.DESCRIPTOR.enum_types_by_name["Card"]
Field = Any
"""A field descriptor (the protobuf stubs type them as a union of the Python and upb classes)."""


@dataclass(frozen=True, slots=True)
class Case:
    """One request to send: its method, its bytes, and the message when the bytes are one."""

    number: int
    method: str
    kind: str
    data: bytes
    message: Message | None
    oversized: bool = False

    def decoded(self) -> Message | None:
        """The request as the server would decode it (None when the bytes do not decode)."""
        if self.message is not None:
            return self.message
        try:
            return REQUESTS[self.method].FromString(self.data)
        except DecodeError:
            return None


def _enum_values(field: Field) -> list[int]:
    numbers = sorted(value.number for value in field.enum_type.values)
    return [*numbers, numbers[-1] + 1, numbers[-1] + 7, 99, INT32_MAX, -1, -(2**31)]


class Generator:
    """Deterministic stream of fuzz cases over a corpus of valid calls."""

    def __init__(self, seed: int, corpus: Sequence[Call], *, oversize_rate: float = OVERSIZE_RATE) -> None:
        self.rng = random.Random(seed)
        self.corpus = [(call.method, call.message()) for call in corpus]
        self.by_method: dict[str, list[Message]] = defaultdict(list)
        for method, request in self.corpus:
            self.by_method[method].append(request)
        self.methods = sorted(self.by_method)
        self.oversize_rate = oversize_rate
        self.count = 0
        self._enum_cache: dict[str, list[int]] = {}
        # every value seen in the corpus per field (by full name): material for splicing
        self.values: dict[str, list[Any]] = defaultdict(list)
        for _, request in self.corpus[:3000]:
            self._collect(request)
        self._makers: dict[str, Callable[[str], tuple[bytes, Message | None, bool]]] = {
            "valid": self._valid,
            "random": self._random,
            "mutant": self._mutant,
            "inconsistent": self._inconsistent,
            "bytes": self._bytes,
        }

    def _collect(self, message: Message) -> None:
        for field, value in message.ListFields():
            pool = self.values[field.full_name]
            if len(pool) < 200:
                pool.append(list(value) if field.is_repeated else value)
            if field.type == FieldDescriptor.TYPE_MESSAGE:
                for item in value if field.is_repeated else [value]:
                    self._collect(item)

    # ---------------------------------------------------------------------------------------------

    def next(self) -> Case:
        """The next case."""
        self.count += 1
        method = self.rng.choice(self.methods)
        kind = self.rng.choices(KINDS, MIX)[0]
        data, message, oversized = self._makers[kind](method)
        return Case(self.count, method, kind, data, message, oversized)

    def _base(self, method: str) -> Message:
        message = REQUESTS[method]()
        message.CopyFrom(self.rng.choice(self.by_method[method]))
        return message

    def _valid(self, method: str) -> tuple[bytes, Message | None, bool]:
        message = self._base(method)
        return message.SerializeToString(), message, False

    def _random(self, method: str) -> tuple[bytes, Message | None, bool]:
        message = REQUESTS[method]()
        self.fill(message, depth=0)
        return message.SerializeToString(), message, False

    def _mutant(self, method: str) -> tuple[bytes, Message | None, bool]:
        message = self._base(method)
        for _ in range(self.rng.choice((1, 1, 1, 2, 2, 3, 4))):
            self.mutate(message)
        return message.SerializeToString(), message, False

    def _inconsistent(self, method: str) -> tuple[bytes, Message | None, bool]:
        message = self._base(method)
        for _ in range(self.rng.choice((1, 1, 2, 3))):
            self.rng.choice((self._splice, self._move, self._rotate_seats, self._reorder))(message)
        return message.SerializeToString(), message, False

    def _bytes(self, method: str) -> tuple[bytes, Message | None, bool]:
        rng = self.rng
        data = bytearray(self._base(method).SerializeToString())
        if rng.random() < self.oversize_rate:
            padding = OVERSIZE_BYTES - len(data)
            # an unknown length-delimited field 1000 holding the padding
            return bytes(data) + tag(1000, 2) + varint(padding) + bytes(padding), None, True
        choice = rng.randrange(8)
        if choice == 0 and data:
            for _ in range(rng.randint(1, 3)):
                data[rng.randrange(len(data))] = rng.randrange(256)
        elif choice == 1 and data:
            del data[rng.randrange(len(data)) :]
        elif choice == 2:
            at = rng.randrange(len(data) + 1)
            data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        elif choice == 3:
            data += _unknown_field(rng)
        elif choice == 4:
            depth = rng.choice((10, 99, 100, 101, 150, 1000))
            number = rng.choice((15, 99, 1000))
            data += tag(number, 3) * depth + tag(number, 4) * depth
        elif choice == 5:
            data += self._base(rng.choice(self.methods)).SerializeToString()  # merge a request of any type
        elif choice == 6:
            data += tag(rng.randint(1, 14), 2) + varint(rng.choice((2**31, 2**32 + 5, 2**63)))
        else:
            data = bytearray(rng.randbytes(rng.randint(0, 64)))
        return bytes(data), None, False

    # ---------------------------------------------------------------------------------------------
    # random values

    def scalar(self, field: Field) -> Any:
        """A boundary or random value for a scalar field."""
        rng = self.rng
        kind = field.type
        if kind == FieldDescriptor.TYPE_ENUM:
            if field.enum_type.full_name == "tractor.rules.v1.Card" and rng.random() < 0.8:
                return rng.randint(1, 54)
            values = self._enum_cache.get(field.full_name)
            if values is None:
                values = self._enum_cache[field.full_name] = _enum_values(field)
            return rng.choice(values)
        if kind == FieldDescriptor.TYPE_UINT32:
            return rng.choice(UINT32) if rng.random() < 0.8 else rng.randrange(2**32)
        if kind == FieldDescriptor.TYPE_UINT64:
            return rng.choice(UINT64) if rng.random() < 0.8 else rng.randrange(2**64)
        if kind == FieldDescriptor.TYPE_INT64:
            return rng.choice((0, 1, -1, 2**63 - 1, -(2**63)))
        if kind == FieldDescriptor.TYPE_BOOL:
            return rng.random() < 0.5
        if kind == FieldDescriptor.TYPE_STRING:
            return (
                rng.choice(STRINGS)
                if rng.random() < 0.9
                else "".join(chr(rng.randrange(32, 0x3000)) for _ in range(8))
            )
        raise AssertionError(f"no generator for {field.full_name} (type {kind})")

    def list_size(self) -> int:
        """Mostly small, sometimes around the limits, rarely huge."""
        rng = self.rng
        return rng.choice(BIG_LIST_SIZES) if rng.random() < 0.03 else rng.choice(LIST_SIZES)

    def fill(self, message: Message, *, depth: int) -> None:
        """Set a random subset of ``message``'s fields to random values."""
        rng = self.rng
        for field in message.DESCRIPTOR.fields:
            if rng.random() < 0.45:
                continue
            if field.type == FieldDescriptor.TYPE_MESSAGE:
                if depth >= 3:
                    continue
                if field.is_repeated:
                    container = getattr(message, field.name)
                    for _ in range(min(self.list_size(), 30)):
                        self.fill(container.add(), depth=depth + 1)
                else:
                    self.fill(getattr(message, field.name), depth=depth + 1)
                    getattr(message, field.name).SetInParent()
            elif field.is_repeated:
                getattr(message, field.name).extend(self.scalar(field) for _ in range(self.list_size()))
            else:
                setattr(message, field.name, self.scalar(field))

    # ---------------------------------------------------------------------------------------------
    # mutation

    def _pick(self, message: Message) -> tuple[Message, Field]:
        """A random field somewhere in ``message`` (set fields preferred), and the message holding it."""
        rng = self.rng
        while True:
            present: list[Field] = [field for field, _ in message.ListFields()]
            fields = present if present and rng.random() < 0.75 else list(message.DESCRIPTOR.fields)
            field: Field = rng.choice(fields)
            if field.type != FieldDescriptor.TYPE_MESSAGE or rng.random() < 0.35:
                return message, field
            if field.is_repeated:
                items = getattr(message, field.name)
                if not items:
                    return message, field
                message = rng.choice(items)
            elif message.HasField(field.name):
                message = getattr(message, field.name)
            else:
                return message, field

    def mutate(self, root: Message) -> None:
        """Change one field somewhere in ``root``: a boundary value, a list grown, shrunk or shuffled."""
        rng = self.rng
        message, field = self._pick(root)
        name = field.name
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            if field.is_repeated:
                self._mutate_messages(getattr(message, name), field)
            elif rng.random() < 0.5:
                message.ClearField(name)
            else:
                sub = getattr(message, name)
                sub.Clear()
                self.fill(sub, depth=2)
                sub.SetInParent()
        elif field.is_repeated:
            self._mutate_list(getattr(message, name), field)
        else:
            setattr(message, name, self.scalar(field))

    def _mutate_list(self, items: Any, field: Field) -> None:
        rng = self.rng
        values = list(items)
        op = rng.randrange(9)
        if op == 0:
            values = []
        elif op == 1:
            values.append(self.scalar(field))
        elif op == 2 and values:
            values.pop(rng.randrange(len(values)))
        elif op == 3 and values:
            values.append(rng.choice(values))  # one more copy of a card already there
        elif op == 4:
            values = values + values
        elif op == 5 and values:
            values[rng.randrange(len(values))] = self.scalar(field)
        elif op == 6:
            rng.shuffle(values)
            values = values[: rng.randint(0, len(values))]
        elif op == 7:
            values = [self.scalar(field) for _ in range(rng.choice(BIG_LIST_SIZES))]
        else:
            values = [self.scalar(field) for _ in range(self.list_size())]
        del items[:]
        items.extend(values)

    def _mutate_messages(self, items: Any, field: Field) -> None:
        rng = self.rng
        op = rng.randrange(6)
        if op == 0:
            del items[:]
        elif op == 1 and len(items):
            del items[rng.randrange(len(items))]
        elif op == 2 and len(items):
            items.add().CopyFrom(items[rng.randrange(len(items))])  # a duplicate: a seat or trick twice
        elif op == 3:
            self.fill(items.add(), depth=2)
        elif op == 4 and len(items):
            copies = rng.choice((5, 26, 101, 300))
            template = items[rng.randrange(len(items))]
            for _ in range(copies):
                items.add().CopyFrom(template)
        else:
            kept = list(items)
            rng.shuffle(kept)
            shuffled = [type(item)() for item in kept]
            for fresh, item in zip(shuffled, kept, strict=True):
                fresh.CopyFrom(item)
            del items[:]
            items.extend(shuffled)

    # ---------------------------------------------------------------------------------------------
    # inconsistency: valid pieces that do not belong together

    def _splice(self, root: Message) -> None:
        """Replace a field with the same field of another request (another hand, another seat)."""
        message, field = self._pick(root)
        pool = self.values.get(field.full_name)
        if not pool:
            return self.mutate(root)
        value = self.rng.choice(pool)
        if field.is_repeated:
            container = getattr(message, field.name)
            del container[:]
            if field.type == FieldDescriptor.TYPE_MESSAGE:
                for item in value:
                    container.add().CopyFrom(item)
            else:
                container.extend(value)
        elif field.type == FieldDescriptor.TYPE_MESSAGE:
            getattr(message, field.name).CopyFrom(value)
        else:
            setattr(message, field.name, value)
        return None

    def _move(self, root: Message) -> None:
        """Copy one card list of the request over another (cards counted twice, a hand that is a play)."""
        lists: list[tuple[Message, Any]] = []
        _card_lists(root, lists)
        if len(lists) < 2:
            return self.mutate(root)
        (source, from_field), (target, to_field) = self.rng.sample(lists, 2)
        values = list(getattr(source, from_field.name))
        container = getattr(target, to_field.name)
        del container[:]
        container.extend(values)
        return None

    def _rotate_seats(self, root: Message) -> None:
        """Shift every seat number by one to three (mod 4, or not): the cards stay, the seats move."""
        shift = self.rng.randint(1, 3)
        wrap = self.rng.random() < 0.7
        _map_seats(root, lambda seat: (seat + shift) % 4 if wrap else seat + shift)

    def _reorder(self, root: Message) -> None:
        """Shuffle a list of plays, hands or tricks, or swap the cards of two of them."""
        lists: list[Any] = []
        _message_lists(root, lists)
        if not lists:
            return self.mutate(root)
        items = self.rng.choice(lists)
        if len(items) < 2:
            return self.mutate(root)
        i, j = self.rng.sample(range(len(items)), 2)
        first, second = type(items[i])(), type(items[j])()
        first.CopyFrom(items[i])
        second.CopyFrom(items[j])
        if self.rng.random() < 0.5:
            items[i].CopyFrom(second)
            items[j].CopyFrom(first)
        elif hasattr(items[i], "cards"):
            del items[i].cards[:]
            items[i].cards.extend(second.cards)
            del items[j].cards[:]
            items[j].cards.extend(first.cards)
        return None


def _card_lists(message: Message, found: list[tuple[Message, Any]]) -> None:
    for field in message.DESCRIPTOR.fields:
        if field.type == FieldDescriptor.TYPE_ENUM and field.is_repeated and field.enum_type is CARD:
            found.append((message, field))
        elif field.type == FieldDescriptor.TYPE_MESSAGE:
            if field.is_repeated:
                for item in getattr(message, field.name):
                    _card_lists(item, found)
            elif message.HasField(field.name):
                _card_lists(getattr(message, field.name), found)


def _message_lists(message: Message, found: list[Any]) -> None:
    for field, value in message.ListFields():
        if field.type != FieldDescriptor.TYPE_MESSAGE:
            continue
        if field.is_repeated:
            found.append(value)
            for item in value:
                _message_lists(item, found)
        else:
            _message_lists(value, found)


SEAT_FIELDS: Final = frozenset({"seat", "leader", "dealer", "first_seated"})


def _map_seats(message: Message, change: Callable[[int], int]) -> None:
    for field, value in message.ListFields():
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            for item in value if field.is_repeated else [value]:
                _map_seats(item, change)
        elif field.name in SEAT_FIELDS and not field.is_repeated:
            setattr(message, field.name, min(change(value), 2**32 - 1))


def _unknown_field(rng: random.Random) -> bytes:
    """A well-formed field the contract does not have (it must be ignored, not refused)."""
    number = rng.choice((15, 99, 1000, 2**29 - 1))
    wire = rng.choice((0, 1, 2, 5))
    if wire == 0:
        return tag(number, 0) + varint(rng.randrange(2**64))
    if wire == 1:
        return tag(number, 1) + rng.randbytes(8)
    if wire == 5:
        return tag(number, 5) + rng.randbytes(4)
    payload = rng.randbytes(rng.randint(0, 40))
    return tag(number, 2) + varint(len(payload)) + payload


def descriptor_of(method: str) -> Any:
    """The request descriptor of a RulesService method."""
    return REQUESTS[method].DESCRIPTOR
