"""The largest request each RPC can legally carry, from the service's own validation bounds.

``--max-message-bytes`` only has to admit requests the service would accept; everything larger is
refused by gRPC before a byte is decoded, so the smaller the limit, the less a hostile client can make a
worker buffer. ``maximal_request`` builds, per RPC, the request with every field at its largest legal
size: each repeated field at the bound its own check enforces (``BOUNDS``), every number at the
largest value of its wire type, every enum at its largest value, the longest preset name. It ignores
the checks across fields (a card at most twice in the whole request, a play within its hand), which
only make real requests smaller, so it is an upper bound on any request that passes validation.

``HandSoFar`` (ListLegalPlays, SuggestPlay) is counted at the bounds AuditHand puts on a recorded hand
(25 tricks of four plays, card lists of at most 108).

Other tables (R14, R15) raise some bounds: eight seats, hands of up to 52 cards, bottoms of 12, and a
hand record (``ResolveTrick.tricks_before``, ``SettleHand.tricks``) of up to 52 tricks of eight plays whose
cards together are at most four decks (``TOTALS``, checked by lengths before a card is read): counted
one card per play, the costliest spread on the wire, while the four decks last.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Final, cast

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from rules_core.audit import MAX_TRICKS
from rules_core.cards import (
    BOTTOM_SIZE,
    DEALER_HAND_SIZE,
    HAND_SIZE,
    MAX_TABLE_BOTTOM,
    MAX_TABLE_CARDS,
    MAX_TABLE_DECKS,
    MAX_TABLE_HAND,
    MAX_TABLE_SEATS,
    MAX_TABLE_TRICKS,
    PLAYERS,
)
from rules_core.rules import PRESETS, FriendLimit
from rules_core.settlement import MAX_FAILED_THROWS
from services.convert import MAX_CARDS, MAX_DECLARATIONS, MAX_FRIEND_CALLS, MAX_LEVELS
from services.servicer import MAX_BATCH_ITEMS
from tractor.rules.v1 import rules_service_pb2 as pb

MARGIN: Final = 2
"""The default limit is at least this many times the largest legal request (room for new fields)."""
ROUND_TO: Final = 64 * 1024
"""The default limit is rounded up to a multiple of 64 KiB."""

_RULESET: Final = {"ruleset.must_play.levels": MAX_LEVELS, "ruleset.friend_limits.limits": len(FriendLimit)}
_TURN: Final = {
    **_RULESET,
    "hand": MAX_TABLE_HAND,  # R14.2: the largest table's hand (52 at four decks, four seats)
    "trick.plays": MAX_TABLE_SEATS - 1,  # the N-th play completes the trick: refused
    "trick.plays.cards": MAX_TABLE_HAND,  # a play is at most a hand
}
_SO_FAR: Final = {
    "hand_so_far.tricks": MAX_TRICKS,
    "hand_so_far.tricks.plays": PLAYERS,
    "hand_so_far.tricks.plays.cards": MAX_CARDS,
    "hand_so_far.tricks.attempted_lead": MAX_CARDS,
    "hand_so_far.bottom": MAX_CARDS,
    "hand_so_far.declarations": MAX_DECLARATIONS,  # R10: the deal's acts, as ValidateDeclaration bounds them
    "hand_so_far.declarations.cards": MAX_TABLE_DECKS,  # R14.11: at most D copies of one face
}
_RECORD: Final = {
    "": MAX_TABLE_TRICKS,  # R15.15, convert.table_tricks
    ".plays": MAX_TABLE_SEATS,
    ".plays.cards": MAX_TABLE_HAND,  # and TOTALS: four decks in the whole record
    ".attempted_lead": MAX_TABLE_HAND,
}
_VALIDATE_PLAY: Final = {
    **_TURN,
    "hand": MAX_TABLE_HAND,  # R14.2: other tables' hands (52 at four decks, four seats)
    "trick.plays": MAX_TABLE_SEATS - 1,  # the N-th play completes the trick: refused
    "cards": MAX_CARDS,
    "other_hands": MAX_TABLE_SEATS - 1,  # the other seats
    "other_hands.cards": MAX_TABLE_HAND,
}
_RESOLVE_TRICK: Final = {
    **_RULESET,
    "plays": MAX_TABLE_SEATS,
    "plays.cards": MAX_CARDS,
    "hands": MAX_TABLE_SEATS,
    "hands.cards": MAX_TABLE_HAND,
    "bottom": MAX_TABLE_BOTTOM,
    "friend_calls": MAX_FRIEND_CALLS,
    **{f"tricks_before{suffix}": bound for suffix, bound in _RECORD.items()},
}
_DECLARATIONS: Final = {
    "declarations": MAX_DECLARATIONS,
    "declarations.cards": MAX_CARDS,
    "declarations.hand": HAND_SIZE,
}
_STAKE: Final = {"tao_dou.balances": PLAYERS}

BOUNDS: Final[Mapping[str, Mapping[str, int]]] = {
    "ValidatePlay": _VALIDATE_PLAY,
    "ResolveTrick": _RESOLVE_TRICK,
    "SettleHand": {
        **_RULESET,
        **_STAKE,
        "failed_throws": max(MAX_FAILED_THROWS, MAX_TABLE_TRICKS),  # R16.2, on any table
        "last_trick_winner.cards": HAND_SIZE,  # R16.4
        "seat_levels": MAX_TABLE_SEATS,  # R15.11
        "friend_calls": MAX_FRIEND_CALLS,
        **{f"tricks{suffix}": bound for suffix, bound in _RECORD.items()},
    },
    "CalculatePenalty": {**_RULESET, "dealer_hand": DEALER_HAND_SIZE, "bottom": BOTTOM_SIZE},
    "ValidateDeclaration": {**_RULESET, **_DECLARATIONS, "bottom": BOTTOM_SIZE},  # R16.6
    "ValidateBury": {
        **_RULESET,
        "hand": max(DEALER_HAND_SIZE, MAX_TABLE_HAND + MAX_TABLE_BOTTOM),
        "bury": MAX_CARDS,
    },
    "ListLegalPlays": {**_TURN, **_SO_FAR},
    "SuggestPlay": {**_TURN, **_SO_FAR},
    "AuditHand": {
        **_RULESET,
        **_DECLARATIONS,
        **_STAKE,
        "hands": MAX_TABLE_SEATS,  # R14: every table's deal
        "hands.cards": MAX_TABLE_HAND,
        "bottom": MAX_TABLE_BOTTOM,
        "buried": MAX_CARDS,
        "friend_calls": MAX_FRIEND_CALLS,  # R15
        "seat_levels": MAX_TABLE_SEATS,
        "tricks": max(MAX_TRICKS, MAX_TABLE_TRICKS),
        "tricks.plays": MAX_TABLE_SEATS,
        "tricks.plays.cards": max(MAX_CARDS, MAX_TABLE_HAND),  # and TOTALS: the decks in the whole record
        "tricks.attempted_lead": max(MAX_CARDS, MAX_TABLE_HAND),
    },
    "SuggestDeclaration": {**_RULESET, "received": HAND_SIZE, **_DECLARATIONS},
    "SuggestBury": {**_RULESET, "hand": DEALER_HAND_SIZE, "bottom": BOTTOM_SIZE},
    "ValidatePlays": {"items": MAX_BATCH_ITEMS, **{f"items.{k}": v for k, v in _VALIDATE_PLAY.items()}},
    "ResolveTricks": {"items": MAX_BATCH_ITEMS, **{f"items.{k}": v for k, v in _RESOLVE_TRICK.items()}},
}
"""Per RPC, the most entries each repeated field of its request may hold (dotted paths)."""

TOTALS: Final[Mapping[str, Mapping[str, int]]] = {
    "ResolveTrick": {"tricks_before.plays.cards": MAX_TABLE_CARDS},
    "SettleHand": {"tricks.plays.cards": MAX_TABLE_CARDS},
    "AuditHand": {"hands.cards": MAX_TABLE_CARDS, "tricks.plays.cards": MAX_TABLE_CARDS},
    "ResolveTricks": {
        "items.tricks_before": MAX_TABLE_TRICKS,
        "items.tricks_before.plays.cards": MAX_TABLE_CARDS,
    },
}
"""Per RPC, repeated fields whose entries the whole request shares: a hand record's cards hold at most four
decks (convert.table_tricks), and a ResolveTricks batch carries one hand's record in all its items
(servicer.ResolveTricks). Card lists in a record are counted one card a play: the most bytes per card."""

_LONGEST_PRESET: Final = max(PRESETS, key=len)
_LARGEST: Final = {
    FieldDescriptor.TYPE_UINT32: 2**32 - 1,
    FieldDescriptor.TYPE_UINT64: 2**64 - 1,
    FieldDescriptor.TYPE_INT64: -1,  # ten bytes, the longest varint
    FieldDescriptor.TYPE_INT32: -1,
    FieldDescriptor.TYPE_BOOL: True,
    FieldDescriptor.TYPE_DOUBLE: 1.0,  # any double is eight bytes
}


def _value(field: FieldDescriptor, path: str) -> object:
    if field.type == FieldDescriptor.TYPE_ENUM:
        assert field.enum_type is not None
        return max(value.number for value in field.enum_type.values)
    if field.type == FieldDescriptor.TYPE_STRING:
        if path.endswith("ruleset.preset"):
            return _LONGEST_PRESET
        raise ValueError(f"no bound for the string {path}")
    if field.type not in _LARGEST:
        raise ValueError(f"no largest value for {path} (type {field.type})")
    return _LARGEST[field.type]


def _fill(message: Message, bounds: Mapping[str, int], prefix: str, shared: dict[str, int]) -> None:
    """Fill ``message`` to its bounds; a path in ``shared`` takes its entries from what is left there."""
    # the C implementation's descriptors have the same interface as the pure-Python ones
    for field in cast("Sequence[FieldDescriptor]", message.DESCRIPTOR.fields):
        if field.containing_oneof is not None and not field.containing_oneof.name.startswith("_"):
            raise ValueError(f"no rule for the oneof field {prefix}{field.name}")
        path = prefix + field.name
        if field.is_repeated:
            if path not in bounds:
                raise ValueError(f"no bound for the repeated field {path}: add it to sizes.BOUNDS")
            container = getattr(message, field.name)
            count = bounds[path]
            if path in shared:
                count = min(count, shared[path], 1 if path.endswith(".cards") else count)
                shared[path] -= count
            for _ in range(count):
                if field.type == FieldDescriptor.TYPE_MESSAGE:
                    _fill(container.add(), bounds, path + ".", shared)
                else:
                    container.append(_value(field, path))
        elif field.type == FieldDescriptor.TYPE_MESSAGE:
            _fill(getattr(message, field.name), bounds, path + ".", shared)
        else:
            setattr(message, field.name, _value(field, path))


def maximal_request(method: str) -> Message:
    """The largest legal request of ``method``: every field at the largest size validation allows."""
    service = pb.DESCRIPTOR.services_by_name["RulesService"]
    descriptor = service.methods_by_name[method].input_type
    message: Message = getattr(pb, descriptor.name)()
    _fill(message, BOUNDS[method], "", dict(TOTALS.get(method, {})))
    return message


def largest_requests() -> dict[str, int]:
    """Bytes of the largest legal request, per RPC."""
    return {method: maximal_request(method).ByteSize() for method in BOUNDS}


def default_max_message_bytes() -> int:
    """``MARGIN`` times the largest legal request of any RPC, rounded up to ``ROUND_TO``."""
    return math.ceil(MARGIN * max(largest_requests().values()) / ROUND_TO) * ROUND_TO


if __name__ == "__main__":  # python -m services.sizes: the table in services/README.md
    for name, size in sorted(largest_requests().items(), key=lambda item: -item[1]):
        print(f"{name:20} {size:8,d}")
    print(f"{'default limit':20} {default_max_message_bytes():8,d}")
