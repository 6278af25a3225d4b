"""The RulesService methods: decode the request (``convert``), make one rules_core call, encode the answer.

Rule outcomes (an illegal play, a rejected declaration, a failed throw) are ordinary responses. A
malformed request is refused by ``convert`` for what only the wire knows (an enum number, a card number,
an int64 overflow) and by rules_core for every game fact, as ``InvalidArgumentError`` naming the request
field; :func:`_answers` turns the latter into ``InvalidRequestError`` and the interceptor into
INVALID_ARGUMENT. Nothing here builds a status.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, Final, TypeVar

from rules_core.audit import AuditError, audit_request
from rules_core.bidding import declare
from rules_core.cards import (
    MAX_TABLE_CARDS,
    MAX_TABLE_SEATS,
    MAX_TABLE_TRICKS,
)
from rules_core.errors import InvalidArgumentError
from rules_core.forced_quit import forced_quit
from rules_core.kitty import validate_bury
from rules_core.rules import Rules, require_rulebook_table
from rules_core.settlement import Side
from rules_core.strategy.bury import suggest_bury
from rules_core.strategy.declaration import suggest_declaration
from rules_core.taodou import settle_request
from rules_core.trick import JudgedTrick, judge_trick
from rules_core.turn import list_plays, suggest, validate_play
from rules_core.verdicts import Illegal, Legal
from services import convert
from services.errors import InvalidRequestError, Reason, from_engine, invalid
from services.interceptor import Context, check_deadline, invalid_status
from services.metrics import Metrics, settlement_band
from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import rules_service_pb2_grpc
from tractor.rules.v1 import types_pb2 as t

MAX_BATCH_ITEMS: Final = 100
"""The most items one ValidatePlays or ResolveTricks call may carry; more is INVALID_ARGUMENT. It bounds a
call's work (about 100 verdicts: a few milliseconds) and its message size."""


Request = TypeVar("Request")
Response = TypeVar("Response")
Handler = Callable[[Any, Request, Context], Response]


def _answers(method: Handler[Request, Response]) -> Handler[Request, Response]:
    """The one place where rules_core's verdict on a malformed argument becomes INVALID_ARGUMENT: the
    engine names the request field itself, so the shell does not check the same things again."""

    @functools.wraps(method)
    def handle(self: Any, request: Request, context: Context) -> Response:
        try:
            return method(self, request, context)
        except InvalidArgumentError as error:
            raise from_engine(error) from None

    return handle


class RulesServicer(rules_service_pb2_grpc.RulesServiceServicer):
    """Stateless: every method is a pure function of its request (plus metrics)."""

    def __init__(self, metrics: Metrics) -> None:
        self._metrics = metrics

    # ---------------------------------------------------------------------------------------------
    # helpers

    def _rules(self, message: t.Ruleset, method: str) -> tuple[Rules, str]:
        rules, preset = convert.ruleset(message)
        self._metrics.count(self._metrics.presets, method, preset)
        return rules, preset

    def _verdict(self, method: str, preset: str, verdict: Legal | Illegal) -> None:
        self._metrics.count(self._metrics.verdicts, method, preset, convert.reason_label(verdict))
        if isinstance(verdict, Legal) and verdict.throw is not None:
            self._metrics.count(self._metrics.throws, "succeeded" if verdict.throw.succeeded else "failed")

    def _tricked(self, preset: str, judged: JudgedTrick) -> None:
        """ResolveTrick's metrics on any table: each play's check (R4, R5), then how it was won (R7)."""
        for verdict in judged.checks:
            self._verdict("ResolveTrick", preset, verdict)
        if judged.result is not None:
            self._metrics.count(self._metrics.tricks, judged.result.won_by.name.lower())

    def _settled(self, winner: Side, gained: int) -> None:
        """The settlements metric on any table (R9, R15.10): the winning side and its level gain."""
        self._metrics.count(self._metrics.settlements, settlement_band(winner.value, gained))

    def _audited(self, preset: str, error: AuditError | None) -> None:
        """AuditHand's verdict metric on any table: valid, or the kind of the first broken rule."""
        verdict = "valid" if error is None else error.finding.value.lower()
        self._metrics.count(self._metrics.verdicts, "AuditHand", preset, verdict)

    # ---------------------------------------------------------------------------------------------
    # plays

    @_answers
    def ValidatePlay(self, request: pb.ValidatePlayRequest, context: Context) -> pb.ValidatePlayResponse:
        """R4 (leads and throws) or R5 (follows), by whether the trick has plays, on every table."""
        rules, preset = self._rules(request.ruleset, "ValidatePlay")
        ctx = convert.trump(request.level, request.contract)
        most = convert.table_cards(rules)
        hand, plays = (
            convert.cards(request.hand, "hand", most),
            convert.seated(request.trick.plays, "trick.plays", rules),
        )
        cards, others = (
            convert.cards(request.cards, "cards", most),
            convert.seated(request.other_hands, "other_hands", rules),
        )
        check_deadline(context)
        result = validate_play(
            ctx,
            rules,
            seat=request.seat,
            hand=hand,
            trick_leader=convert.trick_leader(request),
            trick_plays=plays,
            cards=cards,
            others=others or None,
        )
        self._verdict("ValidatePlay", preset, result.verdict)
        return convert.play_response(result)

    @_answers
    def ResolveTrick(self, request: pb.ResolveTrickRequest, context: Context) -> pb.ResolveTrickResponse:
        """R7 (winner), R8 (points and the dig); with hands, each play is checked first (R4, R5); under
        finding friends the sides after the trick (R15.8)."""
        rules, preset = self._rules(request.ruleset, "ResolveTrick")
        ctx = convert.trump(request.level, request.contract)
        plays, hands = (
            convert.seated(request.plays, "plays", rules),
            convert.seated(request.hands, "hands", rules),
        )
        bottom = convert.cards(request.bottom, "bottom", convert.table_cards(rules))
        calls = convert.friend_calls(request.friend_calls)
        before = convert.table_tricks(request.tricks_before, "tricks_before")
        check_deadline(context)
        judged = judge_trick(
            ctx,
            rules,
            leader=request.leader,
            plays=plays,
            dealer=request.dealer,
            last=request.last_trick,
            bottom=bottom,
            hands=hands,
            calls=calls,
            before=before,
        )
        self._tricked(preset, judged)
        return convert.judged_trick_response(judged)

    @_answers
    def ListLegalPlays(
        self, request: pb.ListLegalPlaysRequest, context: Context
    ) -> pb.ListLegalPlaysResponse:
        """Legal follows by the R5.3 (R14.6) procedure, or one-component leads plus whole-holding throws."""
        rules, _ = self._rules(request.ruleset, "ListLegalPlays")
        ctx = convert.trump(request.level, request.contract)
        hand = convert.cards(request.hand, "hand", convert.table_cards(rules))
        plays = convert.seated(request.trick.plays, "trick.plays", rules)
        so_far = convert.hand_so_far(request.hand_so_far, rules)
        check_deadline(context)
        listing = list_plays(
            ctx,
            rules,
            seat=request.seat,
            hand=hand,
            trick_leader=convert.trick_leader(request),
            trick_plays=plays,
            limit=request.max_plays,
            rank=request.rank,
            so_far=so_far,
            seed=request.seed,
            budget=request.budget,
        )
        return convert.listing_response(listing)

    @_answers
    def SuggestPlay(self, request: pb.SuggestPlayRequest, context: Context) -> pb.SuggestPlayResponse:
        """Auto-play (托管): the strong policy by default, or R13.6 (rightmost smallest, weakest follow)."""
        rules, _ = self._rules(request.ruleset, "SuggestPlay")
        ctx = convert.trump(request.level, request.contract)
        hand = convert.cards(request.hand, "hand", convert.table_cards(rules))
        plays = convert.seated(request.trick.plays, "trick.plays", rules)
        so_far = convert.hand_so_far(request.hand_so_far, rules)
        check_deadline(context)
        suggestion = suggest(
            ctx,
            rules,
            seat=request.seat,
            hand=hand,
            trick_leader=convert.trick_leader(request),
            trick_plays=plays,
            policy=convert.policy(request.policy),
            so_far=so_far,
            seed=request.seed,
            budget=request.budget,
        )
        return convert.suggestion_response(suggestion)

    # ---------------------------------------------------------------------------------------------
    # settlement and coins

    @_answers
    def SettleHand(self, request: pb.SettleHandRequest, context: Context) -> pb.SettleHandResponse:
        """R9 (levels, next dealer, end of game) and, with a stake, R12 (Tao Dou coins); on other tables
        each seat's level change from the whole record (R15.8-R15.13)."""
        rules, _ = self._rules(request.ruleset, "SettleHand")
        result = settle_request(rules, convert.SettleArguments(request))
        self._settled(*convert.settled_band(result))
        return convert.settled_response(result)

    @_answers
    def CalculatePenalty(
        self, request: pb.CalculatePenaltyRequest, context: Context
    ) -> pb.CalculatePenaltyResponse:
        """R13: the penalty by phase and role, capped at the balance; R13.6 for a quitting dealer."""
        rules, _ = self._rules(request.ruleset, "CalculatePenalty")
        require_rulebook_table(rules, "CalculatePenalty")  # R14.10
        phase = convert.phase(request.phase, "phase")
        convert.coins_amount(request.base, "base", convert.MAX_BASE)
        convert.coins_amount(request.balance, "balance")
        convert.coins_amount(request.owed, "owed")
        dealer_hand = convert.cards(request.dealer_hand, "dealer_hand")
        result = forced_quit(
            rules=rules,
            phase=phase,
            role=convert.role(request.role, "role"),
            seat=request.seat,
            base=request.base,
            dealer_level=convert.level(request.dealer_level, "dealer_level"),
            overturn=request.overturn_multiplier,
            balance=request.balance,
            quitter_side_lost=request.quitter_side_lost if request.HasField("quitter_side_lost") else None,
            owed=request.owed if request.HasField("owed") else None,
            ctx=convert.trump(request.level, request.contract) if dealer_hand else None,
            dealer_hand=dealer_hand,
            bottom=convert.cards(request.bottom, "bottom"),
        )
        self._metrics.count(self._metrics.penalties, phase.value.lower())
        return convert.penalty_response(result)

    # ---------------------------------------------------------------------------------------------
    # declaring, burying, whole hands

    @_answers
    def ValidateDeclaration(
        self, request: pb.ValidateDeclarationRequest, context: Context
    ) -> pb.ValidateDeclarationResponse:
        """R10 (R14.11 on other tables): replay the acts in time order; each is accepted with its label or
        rejected with a reason."""
        rules, preset = self._rules(request.ruleset, "ValidateDeclaration")
        level = convert.level(request.level, "level")
        acts = convert.declarations(request.declarations, "declarations")
        bottom = convert.cards(request.bottom, "bottom") if request.bottom else None  # R16.6
        check_deadline(context)
        result = declare(
            rules=rules,
            level=level,
            acts=acts,
            first_hand=request.first_hand,
            first_seated=request.first_seated,
            dealer=request.dealer if request.HasField("dealer") else None,
            bottom=bottom,
        )
        for act in result.acts:
            self._metrics.count(
                self._metrics.verdicts, "ValidateDeclaration", preset, "accepted" if act else "rejected"
            )
        return convert.bidding_response(result)

    @_answers
    def ValidateBury(self, request: pb.ValidateBuryRequest, context: Context) -> pb.ValidateBuryResponse:
        """R11: exactly 8 of the dealer's 33 cards, any 8 (R14.2: the table's bottom size)."""
        rules, preset = self._rules(request.ruleset, "ValidateBury")
        most = convert.table_cards(rules)
        hand, bury = convert.cards(request.hand, "hand", most), convert.cards(request.bury, "bury", most)
        result = validate_bury(rules, hand=hand, bury=bury)
        reason = "legal" if result.legal or result.reason is None else result.reason.name.lower()
        self._metrics.count(self._metrics.verdicts, "ValidateBury", preset, reason)
        return convert.bury_response(result)

    @_answers
    def SuggestDeclaration(
        self, request: pb.SuggestDeclarationRequest, context: Context
    ) -> pb.SuggestDeclarationResponse:
        """托管 during the deal: the act to show now or none, legal under R10 (rules_core.bidding judges)."""
        rules, _ = self._rules(request.ruleset, "SuggestDeclaration")
        level = convert.level(request.level, "level")
        first_hand, dealer = convert.deal_context(request)
        received = convert.cards(request.received, "received", convert.table_cards(rules))
        acts = convert.declarations(request.declarations, "declarations")
        policy = convert.declaration_policy(request.policy)
        check_deadline(context)
        advice = suggest_declaration(
            rules=rules,
            level=level,
            seat=request.seat,
            received=received,
            acts=acts,
            policy=policy,
            first_hand=first_hand,
            dealer=dealer,
        )
        return convert.declaration_advice_response(advice)

    @_answers
    def SuggestBury(self, request: pb.SuggestBuryRequest, context: Context) -> pb.SuggestBuryResponse:
        """托管 for a dealer: 8 of his 33 cards (R11), by the strong policy or R13.6's auto-bury."""
        rules, _ = self._rules(request.ruleset, "SuggestBury")
        ctx = convert.trump(request.level, request.contract)
        hand = convert.cards(request.hand, "hand", convert.table_cards(rules))
        bottom = convert.cards(request.bottom, "bottom")
        policy = convert.bury_policy(request.policy)
        check_deadline(context)
        advice = suggest_bury(ctx, rules, hand=hand, bottom=bottom, policy=policy)
        return convert.bury_advice_response(advice)

    @_answers
    def AuditHand(self, request: pb.AuditHandRequest, context: Context) -> pb.AuditHandResponse:
        """rules_core's audit replays the hand on its table and stops at the first broken rule; a valid hand
        is settled."""
        rules, preset = self._rules(request.ruleset, "AuditHand")
        check_deadline(context)
        result = audit_request(rules, convert.AuditArguments(request))
        band = convert.audited_band(result)
        if band is not None:
            self._settled(*band)
        self._audited(preset, result.error)
        return convert.audited_response(result, rules.seats)

    # ---------------------------------------------------------------------------------------------
    # batches: each item exactly as its unary method answers it

    def ValidatePlays(self, request: pb.ValidatePlaysRequest, context: Context) -> pb.ValidatePlaysResponse:
        """ValidatePlay for every item; a malformed item gets its own INVALID_ARGUMENT in its slot."""
        response = pb.ValidatePlaysResponse()
        _batch(request.items, self.ValidatePlay, response.results, context)
        return response

    def ResolveTricks(self, request: pb.ResolveTricksRequest, context: Context) -> pb.ResolveTricksResponse:
        """ResolveTrick for every item; a malformed item gets its own INVALID_ARGUMENT in its slot."""
        _one_record(request.items[: MAX_BATCH_ITEMS + 1])
        response = pb.ResolveTricksResponse()
        _batch(request.items, self.ResolveTrick, response.results, context)
        return response


# -------------------------------------------------------------------------------------------------
# module helpers


def _batch(
    items: Sequence[Any], unary: Callable[[Any, Context], Any], results: Any, context: Context
) -> None:
    """Answer each item in ``results`` (the response's repeated field) with ``unary`` as a unary call
    would, or with its INVALID_ARGUMENT status.

    Only a malformed item is answered in its slot; the deadline, the work ceiling and a caller gone end
    the whole call, as they would end each item's own call. Each answer is copied once, into its slot
    (building a result message and then the response copied it twice).
    """
    if len(items) > MAX_BATCH_ITEMS:
        raise invalid(
            "items", Reason.BAD_SIZE, f"a batch holds at most {MAX_BATCH_ITEMS} items, got {len(items)}"
        )
    checked = _Checked(context)
    add = results.add
    for index, item in enumerate(items):
        if index % BATCH_CHECK_EVERY == 0:
            checked.refresh()
        try:
            answer = unary(item, checked)
        except InvalidRequestError as error:
            add().error.CopyFrom(invalid_status(error, f"items[{index}]."))
        else:
            add().response.CopyFrom(answer)


def _one_record(items: Sequence[pb.ResolveTrickRequest]) -> None:
    """A batch carries at most one hand's record (``tricks_before``) in all its items, by lengths: it
    bounds the batch's size (services/sizes.py) as a unary ResolveTrick's record bounds its own."""
    tricks = cards = 0
    for item in items:
        tricks += len(item.tricks_before)
        cards += sum(
            len(play.cards) for trick in item.tricks_before for play in trick.plays[: MAX_TABLE_SEATS + 1]
        )
        if tricks > MAX_TABLE_TRICKS or cards > MAX_TABLE_CARDS:
            raise invalid(
                "items",
                Reason.BAD_SIZE,
                f"a batch's tricks_before hold at most {MAX_TABLE_TRICKS} tricks and {MAX_TABLE_CARDS} "
                "cards in all (one hand): send longer records one ResolveTrick at a time",
            )


BATCH_CHECK_EVERY: Final = 8
"""A batch checks its deadline, work ceiling and caller every this many items (each check asks gRPC's
context; once per item would cost more than a small item's rules)."""


class _Checked:
    """The context a batch's items see: the call's deadline and caller as last checked by the batch."""

    def __init__(self, context: Context) -> None:
        self._context = context
        self._remaining: float | None = None

    def refresh(self) -> None:
        """Check the call itself (deadline, ceiling, caller), as every unary call does between steps."""
        check_deadline(self._context)
        self._remaining = self._context.time_remaining()

    def time_remaining(self) -> float | None:
        """The deadline as of the last check."""
        return self._remaining

    def is_active(self) -> bool:
        """The caller was there at the last check (it is checked again within a few items)."""
        return True

    def __getattr__(self, name: str) -> Any:
        return getattr(self._context, name)
