"""Hostile inputs checked from outside: each sent as raw bytes to a running server, with the answer due.

Oversized messages, 10,000-card hands (and 10,000 plays, tricks, declarations, levels), unknown enum
values (past the last one, negative), negative balances (a negative int64 in a uint64 field), duplicate
seats, deeply inconsistent tricks and hand records, corrupt encodings, 200-deep nesting, a megabyte of
preset name. Each case names the status and the field (with its reason) the service must answer; a
rule outcome (an illegal play, an audit finding) is an OK answer with the verdict in the response.

    python -m loadtest.hardening.hostile --target 127.0.0.1:50051     # against a running server
    python -m loadtest.hardening.hostile                              # starts tractor-rules serve itself
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

import grpc
from google.protobuf.message import Message

from loadtest import corpus
from loadtest.contract import REQUESTS, RESPONSES, method_path
from loadtest.hardening import wide
from loadtest.hardening.judge import Outcome, judge
from loadtest.hardening.messages import OVERSIZE_BYTES as OVERSIZE
from loadtest.hardening.messages import descriptor_of
from loadtest.protowire import delimited, field, packed, varint
from loadtest.server import ServerProcess
from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import types_pb2 as t

TIMEOUT: Final = 10.0
BIG: Final = 10_000
MAX_DETAILS: Final = 4096
"""An error's message must stay small, however big the input it complains about."""


@dataclass(frozen=True, slots=True)
class Hostile:
    """One hostile request and the answer it must get."""

    name: str
    method: str
    data: bytes
    code: grpc.StatusCode
    field: str | None = None
    """The violation's field (INVALID_ARGUMENT), None to accept any field the request has."""
    reason: str | None = None
    check: Callable[[Any], bool] | None = None
    """For OK: a predicate on the decoded response (the rule outcome expected)."""
    also: tuple[grpc.StatusCode, ...] = ()
    """Other statuses that are the answer due too (for the worst inputs on other tables:
    INVALID_ARGUMENT past the rules' work ceiling, with ``reason``)."""
    legal_size: bool = False
    """A request of legal size and possible cards: its time is reported (the slowest such input)."""


@dataclass(frozen=True, slots=True)
class Result:
    """What the server answered to a hostile request, and whether it was the answer due."""

    case: Hostile
    outcome: Outcome
    problem: str

    def line(self) -> str:
        violations = self.outcome.violations()
        named = f"{violations[0].field} {violations[0].reason}" if violations else ""
        verdict = "ok " if not self.problem else "BAD"
        return (
            f"{verdict} {self.case.name:58} {self.outcome.code.name:18} {named:34} "
            f"{self.outcome.seconds * 1000:6.1f} ms {self.problem}"
        )


def _bases() -> dict[str, Message]:
    """One valid, rule-abiding request per method (and a lead and a follow) from two self-played hands."""
    found: dict[str, Message] = {}
    hands = corpus.self_play(1, first_seed=3) + corpus.self_play(1, first_seed=5)
    for call in (call for script in hands for call in script.calls):
        if call.expect.get("legal") is False or call.expect.get("accepted") is False:
            continue  # an illegal attempt: a base must be right in everything the cases do not change
        request = call.message()
        key = call.method
        if isinstance(request, pb.ValidatePlayRequest):
            key = "lead" if request.other_hands else "follow"
        found.setdefault(key, request)
    return found


def _with(base: Message, change: Callable[[Any], object]) -> bytes:
    message = type(base)()
    message.CopyFrom(base)
    change(message)
    return message.SerializeToString()


def cases() -> list[Hostile]:
    """Every hostile case, built on valid requests of a self-played hand."""
    base = _bases()
    lead: Any = base["lead"]
    follow, audit, checked = base["follow"], base["AuditHand"], base["ResolveTrick"]
    other: Any = corpus.self_play(1, first_seed=11)[0].calls[-1].message()  # another hand's audit
    invalid, ok, exhausted = (
        grpc.StatusCode.INVALID_ARGUMENT,
        grpc.StatusCode.OK,
        grpc.StatusCode.RESOURCE_EXHAUSTED,
    )
    many_cards = [1 + i % 54 for i in range(BIG)]

    def seats(message: Any, name: str, values: list[int]) -> None:
        for item, value in zip(getattr(message, name), values, strict=False):
            item.seat = value

    return [
        # size
        Hostile(
            "oversized message (the default limit + 4 KiB)",
            "ValidatePlay",
            lead.SerializeToString() + field(1000, 2, varint(OVERSIZE) + bytes(OVERSIZE)),
            exhausted,
        ),
        Hostile(
            "10,000-card hand",
            "ValidatePlay",
            _with(lead, lambda m: m.hand.extend(many_cards)),
            invalid,
            "hand",
            "BAD_SIZE",
        ),
        Hostile(
            "10,000-card other hand",
            "ValidatePlay",
            _with(lead, lambda m: m.other_hands[1].cards.extend(many_cards)),
            invalid,
            "other_hands[1].cards",
            "BAD_SIZE",
        ),
        Hostile(
            "10,000-card play in a trick",
            "ValidatePlay",
            _with(follow, lambda m: m.trick.plays[0].cards.extend(many_cards)),
            invalid,
            "trick.plays[0].cards",
            "BAD_SIZE",
        ),
        Hostile(
            "10,000-card bury",
            "ValidateBury",
            _with(base["ValidateBury"], lambda m: m.bury.extend(many_cards)),
            invalid,
            "bury",
            "BAD_SIZE",
        ),
        Hostile(
            "10,000-card dealt hand in an audit",
            "AuditHand",
            _with(audit, lambda m: m.hands[2].cards.extend(many_cards)),
            invalid,
            "hands[2].cards",
            "BAD_SIZE",
        ),
        Hostile(
            "10,000 plays in a trick",
            "ResolveTrick",
            _with(base["ResolveTrick"], lambda m: [m.plays.add(seat=i % 4, cards=[5]) for i in range(BIG)]),
            invalid,
            "plays",
            "BAD_SIZE",
        ),
        Hostile(
            "1,000 tricks in an audit (10,000 would pass the message size limit)",
            "AuditHand",
            _with(audit, lambda m: [m.tricks.add().CopyFrom(m.tricks[0]) for _ in range(BIG // 10)]),
            invalid,
            "tricks",
            "BAD_SIZE",
        ),
        Hostile(
            "10,000 declarations",
            "ValidateDeclaration",
            _with(
                base["ValidateDeclaration"],
                lambda m: [m.declarations.add(seat=0, cards=[1]) for _ in range(BIG)],
            ),
            invalid,
            "declarations",
            "BAD_SIZE",
        ),
        Hostile(
            "10,000 must-play levels",
            "SettleHand",
            _with(
                base["SettleHand"],
                lambda m: m.ruleset.must_play.levels.extend([2 + i % 13 for i in range(BIG)]),
            ),
            invalid,
            "ruleset.must_play.levels",
            "BAD_SIZE",
        ),
        Hostile(
            "64 KiB preset name (the error stays small)",
            "ValidatePlay",
            _with(lead, lambda m: setattr(m.ruleset, "preset", "x" * 2**16)),
            invalid,
            "ruleset.preset",
            "UNKNOWN_VALUE",
        ),
        Hostile(
            "list_plays max_plays 2^32-1",
            "ListLegalPlays",
            _with(base["ListLegalPlays"], lambda m: setattr(m, "max_plays", 2**32 - 1)),
            invalid,
            "max_plays",
            "OUT_OF_RANGE",
        ),
        # unknown enum values
        Hostile(
            "unknown rank 99",
            "ValidatePlay",
            _with(lead, lambda m: setattr(m, "level", 99)),
            invalid,
            "level",
            "UNKNOWN_VALUE",
        ),
        Hostile(
            "negative contract -1",
            "ValidatePlay",
            _with(lead, lambda m: setattr(m, "contract", -1)),
            invalid,
            "contract",
            "UNKNOWN_VALUE",
        ),
        Hostile(
            "unknown card 999 in a hand",
            "ValidatePlay",
            _with(lead, lambda m: m.hand.__setitem__(3, 999)),
            invalid,
            "hand[3]",
            "UNKNOWN_VALUE",
        ),
        Hostile(
            "negative card -1 in a play",
            "ValidatePlay",
            _with(follow, lambda m: m.cards.__setitem__(0, -1)),
            invalid,
            "cards[0]",
            "UNKNOWN_VALUE",
        ),
        Hostile(
            "unknown quit phase 77",
            "CalculatePenalty",
            _with(base["CalculatePenalty"], lambda m: setattr(m, "phase", 77)),
            invalid,
            "phase",
            "UNKNOWN_VALUE",
        ),
        Hostile(
            "negative role -5",
            "CalculatePenalty",
            _with(base["CalculatePenalty"], lambda m: setattr(m, "role", -5)),
            invalid,
            "role",
            "UNKNOWN_VALUE",
        ),
        Hostile(
            "unknown ruleset option 12345",
            "ResolveTrick",
            _with(base["ResolveTrick"], lambda m: setattr(m.ruleset, "throw_check", 12345)),
            invalid,
            "ruleset.throw_check",
            "UNKNOWN_VALUE",
        ),
        # negative numbers in unsigned fields (a signed client's -1 arrives as 2^64 - 1)
        Hostile(
            "negative balance in a Tao Dou stake",
            "SettleHand",
            _with(base["SettleHand"], lambda m: (m.tao_dou.ClearField("balances"), m.ruleset.Clear()))
            + delimited(6, packed(4, [10, 10, -1, 10])),
            invalid,
            "tao_dou.balances[2]",
            "OUT_OF_RANGE",
        ),
        Hostile(
            "negative balance of a quitter",
            "CalculatePenalty",
            base["CalculatePenalty"].SerializeToString() + field(8, 0, varint(-100)),
            invalid,
            "balance",
            "OUT_OF_RANGE",
        ),
        Hostile(
            "negative debt of a quitter",
            "CalculatePenalty",
            base["CalculatePenalty"].SerializeToString() + field(9, 0, varint(1)) + field(10, 0, varint(-1)),
            invalid,
            "owed",
            "OUT_OF_RANGE",
        ),
        Hostile(
            "negative base 2^64-1",
            "CalculatePenalty",
            base["CalculatePenalty"].SerializeToString() + field(5, 0, varint(-1)),
            invalid,
            "base",
            "OUT_OF_RANGE",
        ),
        Hostile(
            "negative score -5",
            "SettleHand",
            base["SettleHand"].SerializeToString() + field(5, 0, varint(-5)),
            invalid,
            "score",
            "OUT_OF_RANGE",
        ),
        Hostile(
            "negative seat -1",
            "ValidatePlay",
            lead.SerializeToString() + field(4, 0, varint(-1)),
            invalid,
            "seat",
            "OUT_OF_RANGE",
        ),
        # duplicate seats
        Hostile(
            "duplicate seat among the other hands",
            "ValidatePlay",
            _with(lead, lambda m: seats(m, "other_hands", [(lead.seat + 1) % 4] * 3)),
            invalid,
            "other_hands[1].seat",
            "OUT_OF_ORDER",
        ),
        Hostile(
            "duplicate seat in a trick's plays",
            "ResolveTrick",
            _with(base["ResolveTrick"], lambda m: seats(m, "plays", [m.leader] * 4)),
            invalid,
            "plays[1].seat",
            "OUT_OF_ORDER",
        ),
        Hostile(
            "duplicate seat in an audit's deal",
            "AuditHand",
            _with(audit, lambda m: seats(m, "hands", [0, 1, 1, 3])),
            invalid,
            "hands[2].seat",
            "OUT_OF_ORDER",
        ),
        # deeply inconsistent tricks and records
        Hostile(
            "a checked trick led with cards the leader does not hold",
            "ResolveTrick",
            _with(checked, lambda m: m.plays[0].cards.__setitem__(slice(None), list(m.plays[1].cards))),
            ok,
            check=lambda response: not response.legal,
        ),
        Hostile(
            "a checked trick of unequal plays",
            "ResolveTrick",
            _with(checked, lambda m: m.plays[2].cards.append(54)),
            ok,
            check=lambda response: not response.legal,
        ),
        Hostile(
            "a trick of unequal plays",
            "ResolveTrick",
            _with(checked, lambda m: (m.ClearField("hands"), m.plays[2].cards.append(54))),
            invalid,
            "plays[2].cards",
            "BAD_SIZE",
        ),
        Hostile(
            "a follow holding two more copies of a led card",
            "ValidatePlay",
            _with(follow, lambda m: m.hand.__setitem__(slice(0, 2), [m.trick.plays[0].cards[0]] * 2)),
            invalid,
            None,
            "TOO_MANY_COPIES",
        ),
        Hostile(
            "an audit whose tricks are another deal's",
            "AuditHand",
            _with(audit, lambda m: (m.ClearField("tricks"), m.tricks.extend(other.tricks))),
            ok,
            check=lambda response: not response.valid,
        ),
        Hostile(
            "an audit with its tricks in reverse order",
            "AuditHand",
            _with(audit, lambda m: m.tricks.reverse()),
            ok,
            check=lambda response: not response.valid,
        ),
        Hostile(
            "an audit whose deal is not two decks",
            "AuditHand",
            _with(audit, lambda m: m.hands[0].cards.__setitem__(0, m.hands[1].cards[0])),
            invalid,
            None,
            None,
        ),
        # bytes
        Hostile(
            "groups nested 200 deep",
            "ValidatePlay",
            lead.SerializeToString() + field(99, 3) * 200 + field(99, 4) * 200,
            invalid,
            "99",
            "MALFORMED",
        ),
        Hostile(
            "a preset that is not UTF-8",
            "SettleHand",
            field(1, 2, varint(3) + field(1, 2, b"\x01\xff")) + base["SettleHand"].SerializeToString()[0:0],
            invalid,
            "ruleset.preset",
            "MALFORMED",
        ),
        Hostile(
            "a length past the end inside a trick",
            "ValidatePlay",
            delimited(7, field(2, 2, varint(50) + b"\x08")),
            invalid,
            "trick.plays[0]",
            "MALFORMED",
        ),
        Hostile("64 bytes of garbage", "AuditHand", bytes(range(7, 71)), invalid, None, None),
        *_suggest_deal_cases(base["ValidateBury"]),
        *_wide_cases(),
    ]


def _wide_cases() -> list[Hostile]:
    """R14 (rbtying #411): the worst throws, follows and tricks on three and four decks; each is answered,
    OK or INVALID_ARGUMENT ``OUT_OF_RANGE`` past the rules' work ceiling, never INTERNAL, never a hang."""
    return [
        Hostile(
            case.name,
            case.method,
            case.request.SerializeToString(),
            grpc.StatusCode.OK,
            None,
            "OUT_OF_RANGE",
            check=functools.partial(wide.reached, case.request),
            also=(grpc.StatusCode.INVALID_ARGUMENT,),
            legal_size=True,
        )
        for case in wide.cases()
    ]


def _suggest_deal_cases(bury: Any) -> list[Hostile]:
    """SuggestDeclaration and SuggestBury: giant lists, unknown policies, impossible holdings."""
    invalid = grpc.StatusCode.INVALID_ARGUMENT
    many_cards = [1 + i % 54 for i in range(BIG)]
    declare = pb.SuggestDeclarationRequest(level=t.RANK_2, seat=1, received=[t.CARD_S2, t.CARD_H2, t.CARD_C2])
    dealer = pb.SuggestBuryRequest(level=t.RANK_2, contract=t.CONTRACT_SPADES, hand=bury.hand)

    def impossible_bottom(message: Any) -> None:
        message.policy = pb.BURY_POLICY_AUTO_BURY
        message.bottom.extend([t.CARD_BJ] * 2 + [t.CARD_S2] * 6)

    return [
        Hostile(
            "10,000 cards received during the deal",
            "SuggestDeclaration",
            _with(declare, lambda m: m.received.extend(many_cards)),
            invalid,
            "received",
            "BAD_SIZE",
        ),
        Hostile(
            "10,000 declarations before a suggestion",
            "SuggestDeclaration",
            _with(declare, lambda m: [m.declarations.add(seat=0, cards=[1]) for _ in range(BIG)]),
            invalid,
            "declarations",
            "BAD_SIZE",
        ),
        Hostile(
            "unknown declaration policy 77",
            "SuggestDeclaration",
            _with(declare, lambda m: setattr(m, "policy", 77)),
            invalid,
            "policy",
            "UNKNOWN_VALUE",
        ),
        Hostile(
            "a level card received that another seat showed both copies of",
            "SuggestDeclaration",
            _with(declare, lambda m: m.declarations.add(seat=0, cards=[1, 1])),
            invalid,
            "received",
            "INCONSISTENT",
        ),
        Hostile(
            "10,000-card dealer hand to bury from",
            "SuggestBury",
            _with(dealer, lambda m: m.hand.extend(many_cards)),
            invalid,
            "hand",
            "BAD_SIZE",
        ),
        Hostile(
            "unknown bury policy 77",
            "SuggestBury",
            _with(dealer, lambda m: setattr(m, "policy", 77)),
            invalid,
            "policy",
            "UNKNOWN_VALUE",
        ),
        Hostile(
            "an auto-bury of an impossible bottom",
            "SuggestBury",
            _with(dealer, impossible_bottom),
            invalid,
            None,
            None,
        ),
    ]


def send(channel: grpc.Channel, case: Hostile) -> Result:
    """Send one hostile request and judge the answer."""
    call = channel.unary_unary(method_path(case.method))
    started = time.perf_counter()
    try:
        response = call(case.data, timeout=TIMEOUT)
        outcome = Outcome(grpc.StatusCode.OK, "", (), response, time.perf_counter() - started)
    except grpc.RpcError as error:
        outcome = Outcome(
            error.code(),
            error.details() or "",
            list(error.trailing_metadata() or ()),
            None,
            time.perf_counter() - started,
        )
    return Result(case, outcome, _problem(case, outcome))


def _problem(case: Hostile, outcome: Outcome) -> str:
    request = None
    try:
        request = REQUESTS[case.method].FromString(case.data)
    except Exception:
        request = None
    oversized = case.code == grpc.StatusCode.RESOURCE_EXHAUSTED
    problem = judge(
        outcome,
        method=case.method,
        descriptor=descriptor_of(case.method),
        request=request,
        oversized=oversized,
    )
    if problem:
        return problem
    if outcome.code != case.code and outcome.code not in case.also:
        return f"expected {case.code.name}"
    if len(outcome.details) > MAX_DETAILS:
        return f"a {len(outcome.details)}-character error message"
    if outcome.code == grpc.StatusCode.OK and case.check is not None:
        response = RESPONSES[case.method].FromString(outcome.response or b"")
        return "" if case.check(response) else "the response is not the rule outcome due"
    violations = outcome.violations()
    if case.field is not None and (not violations or violations[0].field != case.field):
        return f"expected the field {case.field!r}"
    if (
        case.reason is not None
        and outcome.code != grpc.StatusCode.OK
        and (not violations or violations[0].reason != case.reason)
    ):
        return f"expected the reason {case.reason}"
    return ""


def slowest(results: Sequence[Result]) -> Result | None:
    """The slowest answer to a request of legal size (the worst inputs on other tables)."""
    timed = [result for result in results if result.case.legal_size]
    return max(timed, key=lambda result: result.outcome.seconds, default=None)


def slowest_line(results: Sequence[Result]) -> str:
    """The report's line for :func:`slowest`: its time, status and name."""
    worst = slowest(results)
    if worst is None:
        return "slowest legal-size input: none sent"
    return (
        f"slowest legal-size input (other tables): {worst.outcome.seconds * 1000:.1f} ms, "
        f"{worst.outcome.code.name}, {worst.case.name}"
    )


def run(target: str) -> list[Result]:
    """Every hostile case against ``target``."""
    with grpc.insecure_channel(target, options=[("grpc.max_receive_message_length", 64 * 2**20)]) as channel:
        grpc.channel_ready_future(channel).result(timeout=30)
        return [send(channel, case) for case in cases()]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m loadtest.hardening.hostile", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--target", help="host:port of a running server (default: start one)")
    args = parser.parse_args(argv)
    if args.target:
        results = run(args.target)
    else:
        with ServerProcess("--workers", "2") as server:
            before = server.workers()
            results = run(server.target)
            after = server.workers()
        print(f"workers before {before}, after {after}")
    for result in results:
        print(result.line())
    bad = [result for result in results if result.problem]
    print(slowest_line(results))
    print(f"{len(results)} hostile requests, {len(bad)} answered wrong")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
