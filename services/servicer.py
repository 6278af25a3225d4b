"""The RulesService methods: validate the request (``convert``), ask rules_core, convert the answer back.

Rule outcomes (an illegal play, a rejected declaration, a failed throw) are ordinary responses. A
malformed request raises ``InvalidRequestError`` from ``convert`` or from the consistency checks here;
the interceptor turns it into INVALID_ARGUMENT. Nothing here builds a status.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, Final, TypeVar

from rules_core.audit import HandRecord, audit_hand
from rules_core.bidding import resolve_declarations
from rules_core.cards import BOTTOM_SIZE, DEALER_HAND_SIZE, HAND_SIZE, PLAYERS, hand_of, points_of
from rules_core.errors import InvalidArgumentError
from rules_core.follow import check_follow
from rules_core.forced_quit import Role, auto_bury, auto_lead, penalty
from rules_core.kitty import check_bury
from rules_core.rules import Rules
from rules_core.settlement import settle_hand
from rules_core.shapes import decompose
from rules_core.taodou import BASIS_POINTS, OVERTURN_MULTIPLIERS, CoinSettlement, settle_coins
from rules_core.throw import check_lead
from rules_core.trick import resolve_trick
from rules_core.trump import TrumpContext
from rules_core.turn import list_plays, suggest, validate_play
from rules_core.verdicts import Illegal, Legal
from services import convert
from services.errors import InvalidRequestError, Reason, from_engine, invalid
from services.interceptor import Context, check_deadline, invalid_status
from services.metrics import Metrics, settlement_band
from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import rules_service_pb2_grpc
from tractor.rules.v1 import types_pb2 as t

DEFAULT_LIST_LIMIT: Final = 100
MAX_BATCH_ITEMS: Final = 100
"""The most items one ValidatePlays or ResolveTricks call may carry; more is INVALID_ARGUMENT. It bounds a
call's work (about 100 verdicts: a few milliseconds) and its message size."""
MAX_BASE: Final = 10**12
"""The largest Tao Dou base accepted: keeps every coin amount inside int64 (B x 14 x 8 x 12 x 10)."""
SCORE_STEP: Final = 5
MAX_COINS: Final = 2**63 - 1
"""The largest balance or debt accepted. A client that encodes a negative int64 into these uint64 fields
sends 2**64 - n: refused as out of range rather than read as a fortune."""


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

    # ---------------------------------------------------------------------------------------------
    # plays

    @_answers
    def ValidatePlay(self, request: pb.ValidatePlayRequest, context: Context) -> pb.ValidatePlayResponse:
        """R4 (leads and throws) or R5 (follows), by whether the trick has plays."""
        rules, preset = self._rules(request.ruleset, "ValidatePlay")
        ctx = convert.trump(request.level, request.contract)
        hand, plays = convert.cards(request.hand, "hand"), convert.seated(request.trick.plays, "trick.plays")
        cards, others = (
            convert.cards(request.cards, "cards"),
            convert.seated(request.other_hands, "other_hands"),
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
        """R7 (winner), R8 (points and the dig); with hands, each play is checked first (R4, R5)."""
        rules, preset = self._rules(request.ruleset, "ResolveTrick")
        ctx = convert.trump(request.level, request.contract)
        leader = convert.seat(request.leader, "leader")
        dealer = convert.seat(request.dealer, "dealer")
        if len(request.plays) != PLAYERS:
            raise invalid(
                "plays", Reason.BAD_SIZE, f"a trick has exactly {PLAYERS} plays, got {len(request.plays)}"
            )
        bottom = convert.faces(request.bottom, "bottom")
        if request.last_trick or bottom:
            convert.sized(bottom, "bottom", BOTTOM_SIZE, BOTTOM_SIZE, "the bottom")
        deck = convert.Deck()
        checks: list[Legal | Illegal] = []
        if request.hands:
            hands = convert.seat_cards(request.hands, "hands", seats=range(PLAYERS), low=1, deck=deck)
            plays = convert.seated_plays(request.plays, "plays", leader=leader)
            deck.add(bottom, "bottom")
            check_deadline(context)
            held = {s: hand_of(c) for s, c in hands.items()}
            checks = self._check_trick(ctx, rules, leader, plays, held, preset=preset)
            problem = _trick_problem(checks, leader)
            if problem:
                return _unresolved(problem, checks, leader)
        else:
            plays = convert.table_plays(ctx, request.plays, "plays", leader=leader, deck=deck)
            deck.add(bottom, "bottom")
        result = resolve_trick(
            ctx, rules, leader=leader, plays=plays, dealer=dealer, last=request.last_trick, bottom=bottom
        )
        self._metrics.count(self._metrics.tricks, result.won_by.name.lower())
        response = convert.trick_response(result, leader)
        for judgement, verdict in zip(response.plays, checks, strict=False):
            _fill_check(judgement, verdict)
        return response

    def _check_trick(
        self,
        ctx: TrumpContext,
        rules: Rules,
        leader: int,
        plays: Sequence[tuple[int, ...]],
        hands: dict[int, tuple[int, ...]],
        *,
        preset: str,
    ) -> list[Legal | Illegal]:
        """Check the lead against the other hands, then each follow (skipped after an illegal lead)."""
        others = {s: hands[s] for s in range(PLAYERS) if s != leader}
        checks: list[Legal | Illegal] = [
            check_lead(ctx, rules, hand=hands[leader], lead=plays[0], others=others)
        ]
        if isinstance(checks[0], Legal):
            for i in range(1, PLAYERS):
                hand = hands[(leader + i) % PLAYERS]
                checks.append(check_follow(ctx, rules, hand=hand, lead=plays[0], play=plays[i]))
        for verdict in checks:
            self._verdict("ResolveTrick", preset, verdict)
        return checks

    @_answers
    def ListLegalPlays(
        self, request: pb.ListLegalPlaysRequest, context: Context
    ) -> pb.ListLegalPlaysResponse:
        """Legal follows by the R5.3 procedure, or one-component leads plus whole-holding throws."""
        self._rules(request.ruleset, "ListLegalPlays")
        ctx = convert.trump(request.level, request.contract)
        hand, plays = convert.cards(request.hand, "hand"), convert.seated(request.trick.plays, "trick.plays")
        check_deadline(context)
        listing = list_plays(
            ctx,
            seat=request.seat,
            hand=hand,
            trick_leader=convert.trick_leader(request),
            trick_plays=plays,
            limit=request.max_plays,
        )
        return convert.listing_response(listing)

    @_answers
    def SuggestPlay(self, request: pb.SuggestPlayRequest, context: Context) -> pb.SuggestPlayResponse:
        """Auto-play (R13.6): the rightmost smallest card as a lead, the weakest legal follow otherwise."""
        self._rules(request.ruleset, "SuggestPlay")
        ctx = convert.trump(request.level, request.contract)
        hand, plays = convert.cards(request.hand, "hand"), convert.seated(request.trick.plays, "trick.plays")
        check_deadline(context)
        suggestion = suggest(
            ctx, seat=request.seat, hand=hand, trick_leader=convert.trick_leader(request), trick_plays=plays
        )
        return convert.suggestion_response(suggestion)

    # ---------------------------------------------------------------------------------------------
    # settlement and coins

    @_answers
    def SettleHand(self, request: pb.SettleHandRequest, context: Context) -> pb.SettleHandResponse:
        """R9 (levels, next dealer, end of game) and, with a stake, R12 (Tao Dou coins)."""
        rules, preset = self._rules(request.ruleset, "SettleHand")
        dealer = convert.seat(request.dealer, "dealer")
        dealer_level = convert.level(request.dealer_team_level, "dealer_team_level")
        attacker_level = convert.level(request.attacker_level, "attacker_level")
        score = _score(request.score, "score")
        result = settle_hand(
            rules=rules,
            dealer_seat=dealer,
            dealer_level=dealer_level,
            attacker_level=attacker_level,
            score=score,
        )
        coins = None
        if request.HasField("tao_dou"):
            _check_coins(rules, preset)
            coins = self._coins(
                rules,
                request.tao_dou,
                dealer_level=dealer_level,
                score=score,
                dealer=dealer,
                g_eff=result.g_eff,
                overturn=request.tao_dou.overturn_multiplier,
            )
        self._metrics.count(
            self._metrics.settlements, settlement_band(result.winner_side.value, result.g_eff)
        )
        return convert.settlement_response(result, coins)

    @staticmethod
    def _coins(
        rules: Rules,
        stake: pb.TaoDouStake,
        *,
        dealer_level: int,
        score: int,
        dealer: int,
        g_eff: int,
        overturn: int,
    ) -> CoinSettlement:
        """R12 for a stake; ``overturn`` is O, from the stake (SettleHand) or the declarations (AuditHand)."""
        if stake.overturn_multiplier and stake.overturn_multiplier != overturn:
            raise invalid(
                "tao_dou.overturn_multiplier",
                Reason.INCONSISTENT,
                f"the declarations give O = {overturn}: send 0 or {overturn}",
            )
        _check_stake(stake.base, overturn, "tao_dou.")
        if stake.rake_percent > 100:
            raise invalid("tao_dou.rake_percent", Reason.OUT_OF_RANGE, "the rake is a percentage 0..100")
        if stake.HasField("rake_basis_points"):
            if stake.rake_percent:
                raise invalid(
                    "tao_dou.rake_basis_points",
                    Reason.INCONSISTENT,
                    "give the rake as rake_percent or as rake_basis_points, not both",
                )
            if stake.rake_basis_points > BASIS_POINTS:
                raise invalid(
                    "tao_dou.rake_basis_points",
                    Reason.OUT_OF_RANGE,
                    f"the rake is 0..{BASIS_POINTS} basis points, got {stake.rake_basis_points}",
                )
        rake_bp = stake.rake_basis_points if stake.HasField("rake_basis_points") else stake.rake_percent * 100
        if stake.balances and len(stake.balances) != PLAYERS:
            raise invalid("tao_dou.balances", Reason.BAD_SIZE, f"give all {PLAYERS} seats' balances, or none")
        for i, balance in enumerate(stake.balances):
            _check_coins_amount(balance, f"tao_dou.balances[{i}]")
        return settle_coins(
            rules=rules,
            base=stake.base,
            dealer_level=dealer_level,
            overturn=overturn,
            score=score,
            rake_bp=rake_bp,
            dealer_seat=dealer,
            g_eff=g_eff,
            balances=list(stake.balances) or None,
        )

    @_answers
    def CalculatePenalty(
        self, request: pb.CalculatePenaltyRequest, context: Context
    ) -> pb.CalculatePenaltyResponse:
        """R13: the penalty by phase and role, capped at the balance; R13.6 for a quitting dealer."""
        rules, preset = self._rules(request.ruleset, "CalculatePenalty")
        if not rules.coins:
            raise invalid(
                "ruleset",
                Reason.INCONSISTENT,
                f"the ruleset {preset!r} has no coins, so no forced-quit penalty (R13)",
            )
        phase = convert.phase(request.phase, "phase")
        convert.seat(request.seat, "seat")
        role = convert.role(request.role, "role")
        dealer_level = convert.level(request.dealer_level, "dealer_level")
        _check_stake(request.base, request.overturn_multiplier, "")
        _check_coins_amount(request.balance, "balance")
        _check_coins_amount(request.owed, "owed")
        settled = request.HasField("quitter_side_lost"), request.HasField("owed")
        if settled[0] != settled[1]:
            missing = "owed" if settled[0] else "quitter_side_lost"
            raise invalid(missing, Reason.MISSING, "give quitter_side_lost and owed together (R13.4)")
        if settled[0] and not request.quitter_side_lost and request.owed:
            raise invalid(
                "owed", Reason.INCONSISTENT, "a quitter whose side won owes nothing: owed must be 0"
            )
        result = penalty(
            rules=rules,
            phase=phase,
            role=role,
            base=request.base,
            dealer_level=dealer_level,
            overturn=request.overturn_multiplier,
            balance=request.balance,
            quitter_side_lost=request.quitter_side_lost if settled[0] else None,
            owed=request.owed if settled[1] else None,
        )
        self._metrics.count(self._metrics.penalties, phase.value.lower())
        if not request.dealer_hand:
            if request.bottom:
                raise invalid("bottom", Reason.INCONSISTENT, "the bottom goes with dealer_hand (R13.6)")
            return convert.penalty_response(result)
        if role is not Role.DEALER:
            raise invalid(
                "dealer_hand",
                Reason.INCONSISTENT,
                "the automatic bury and lead are for a quitting dealer (R13.6)",
            )
        ctx = convert.trump(request.level, request.contract)
        buried, hand = _dealer_cards(request.dealer_hand, request.bottom)
        return convert.penalty_response(result, buried, auto_lead(ctx, hand))

    # ---------------------------------------------------------------------------------------------
    # declaring, burying, whole hands

    @_answers
    def ValidateDeclaration(
        self, request: pb.ValidateDeclarationRequest, context: Context
    ) -> pb.ValidateDeclarationResponse:
        """R10: replay the acts in time order; each is accepted with its label or rejected with a reason."""
        rules, preset = self._rules(request.ruleset, "ValidateDeclaration")
        level = convert.level(request.level, "level")
        sequence = convert.declarations(request.declarations, "declarations")
        first_seated, dealer = _dealer_inputs(request)
        check_deadline(context)
        result = resolve_declarations(
            rules=rules,
            level=level,
            sequence=sequence,
            first_hand=request.first_hand,
            first_seated=first_seated,
            dealer=dealer,
        )
        for act in result.acts:
            self._metrics.count(
                self._metrics.verdicts, "ValidateDeclaration", preset, "accepted" if act else "rejected"
            )
        return convert.bidding_response(result)

    @_answers
    def ValidateBury(self, request: pb.ValidateBuryRequest, context: Context) -> pb.ValidateBuryResponse:
        """R11: exactly 8 of the dealer's 33 cards, any 8."""
        _, preset = self._rules(request.ruleset, "ValidateBury")
        cards = convert.sized(
            convert.faces(request.hand, "hand"),
            "hand",
            DEALER_HAND_SIZE,
            DEALER_HAND_SIZE,
            "the dealer's hand",
        )
        bury = convert.faces(request.bury, "bury")
        result = check_bury(hand=hand_of(cards), bury=bury)
        reason = "legal" if result.legal or result.reason is None else result.reason.name.lower()
        self._metrics.count(self._metrics.verdicts, "ValidateBury", preset, reason)
        if result.legal:
            return pb.ValidateBuryResponse(legal=True, bottom_points=points_of(bury))
        return pb.ValidateBuryResponse(
            violation=convert.VIOLATIONS[result.reason] if result.reason else t.VIOLATION_UNSPECIFIED,
            message=result.message,
        )

    @_answers
    def AuditHand(self, request: pb.AuditHandRequest, context: Context) -> pb.AuditHandResponse:
        """rules_core's audit replays the hand and stops at the first broken rule; a valid hand is settled."""
        rules, preset = self._rules(request.ruleset, "AuditHand")
        level = convert.level(request.level, "level")
        attacker_level = convert.level(request.attacker_level, "attacker_level")
        deck = convert.Deck()
        dealt = convert.seat_cards(request.hands, "hands", seats=range(PLAYERS), low=HAND_SIZE, deck=deck)
        bottom = convert.sized(
            convert.faces(request.bottom, "bottom"), "bottom", BOTTOM_SIZE, BOTTOM_SIZE, "the bottom"
        )
        deck.add(bottom, "bottom")
        declarations = convert.declarations(request.declarations, "declarations")
        first_seated, dealer = _dealer_inputs(request)
        if request.HasField("tao_dou"):
            _check_coins(rules, preset)
        record = HandRecord(
            level=level,
            attacker_level=attacker_level,
            deal=tuple(hand_of(dealt[seat]) for seat in range(PLAYERS)),
            bottom=bottom,
            declarations=tuple(declarations),
            buried=convert.faces(request.buried, "buried"),
            tricks=convert.recorded_tricks(request.tricks, "tricks"),
            first_hand=request.first_hand,
            first_seated=first_seated,
            dealer=dealer,
        )
        check_deadline(context)
        audit = audit_hand(rules, record)
        response = convert.audit_response(audit, [trick.plays[0].seat for trick in request.tricks])
        if response.valid and audit.settlement is not None and audit.dealer is not None:
            coins = None
            if request.HasField("tao_dou"):
                coins = self._coins(
                    rules,
                    request.tao_dou,
                    dealer_level=level,
                    score=audit.score,
                    dealer=audit.dealer,
                    g_eff=audit.settlement.g_eff,
                    overturn=audit.bidding.overturn_multiplier,
                )
            response.settlement.CopyFrom(convert.settlement_response(audit.settlement, coins))
            band = settlement_band(audit.settlement.winner_side.value, audit.settlement.g_eff)
            self._metrics.count(self._metrics.settlements, band)
        outcome = pb.AuditFinding.Name(response.finding).removeprefix("AUDIT_FINDING_").lower()
        verdict = "valid" if response.valid else outcome
        self._metrics.count(self._metrics.verdicts, "AuditHand", preset, verdict)
        return response

    # ---------------------------------------------------------------------------------------------
    # batches: each item exactly as its unary method answers it

    def ValidatePlays(self, request: pb.ValidatePlaysRequest, context: Context) -> pb.ValidatePlaysResponse:
        """ValidatePlay for every item; a malformed item gets its own INVALID_ARGUMENT in its slot."""
        return pb.ValidatePlaysResponse(
            results=_batch(request.items, self.ValidatePlay, pb.ValidatePlayResult, context)
        )

    def ResolveTricks(self, request: pb.ResolveTricksRequest, context: Context) -> pb.ResolveTricksResponse:
        """ResolveTrick for every item; a malformed item gets its own INVALID_ARGUMENT in its slot."""
        return pb.ResolveTricksResponse(
            results=_batch(request.items, self.ResolveTrick, pb.ResolveTrickResult, context)
        )


# -------------------------------------------------------------------------------------------------
# module helpers


def _batch(
    items: Sequence[Any], unary: Callable[[Any, Context], Any], result: Any, context: Context
) -> list[Any]:
    """Answer each item with ``unary`` as a unary call would, or with its INVALID_ARGUMENT status.

    Only a malformed item is answered in its slot; the deadline, the work ceiling and a caller gone end
    the whole call, as they would end each item's own call.
    """
    if len(items) > MAX_BATCH_ITEMS:
        raise invalid(
            "items", Reason.BAD_SIZE, f"a batch holds at most {MAX_BATCH_ITEMS} items, got {len(items)}"
        )
    results = []
    for index, item in enumerate(items):
        try:
            results.append(result(response=unary(item, context)))
        except InvalidRequestError as error:
            results.append(result(error=invalid_status(error, f"items[{index}].")))
    return results


def _check_coins(rules: Rules, preset: str) -> None:
    """A Tao Dou stake needs a ruleset with coins (R12.7)."""
    if not rules.coins:
        raise invalid(
            "tao_dou", Reason.INCONSISTENT, f"the ruleset {preset!r} has no coins (R12.7); omit tao_dou"
        )


def _dealer_inputs(request: pb.ValidateDeclarationRequest | pb.AuditHandRequest) -> tuple[int, int | None]:
    """The first-seated seat, and the rotation dealer of a later hand (absent in the first hand, R10.6)."""
    first_seated = convert.seat(request.first_seated, "first_seated")
    dealer = convert.seat(request.dealer, "dealer") if request.HasField("dealer") else None
    if request.first_hand and dealer is not None:
        raise invalid(
            "dealer",
            Reason.INCONSISTENT,
            "the first hand's dealer is decided by the bidding (R10.6); omit it",
        )
    return first_seated, dealer


def _is_throw(ctx: TrumpContext, play: Sequence[int]) -> bool:
    """Whether a lead has several components of one category (a throw, R3.5)."""
    if not play:
        return False
    decomposition = decompose(ctx, play)
    return decomposition.category is not None and len(decomposition.components) > 1


def _score(value: int, path: str) -> int:
    """An attackers' score: a multiple of 5 (R8.1, R8.8)."""
    if value % SCORE_STEP:
        raise invalid(path, Reason.OUT_OF_RANGE, f"a score is a multiple of {SCORE_STEP} (R8.1), got {value}")
    return value


def _check_coins_amount(value: int, path: str) -> None:
    """A balance or debt within int64: larger values are negative numbers encoded by mistake."""
    if value > MAX_COINS:
        raise invalid(
            path,
            Reason.OUT_OF_RANGE,
            f"at most {MAX_COINS} coins, got {value}: a negative amount sent as int64 arrives this way",
        )


def _check_stake(base: int, overturn: int, prefix: str) -> None:
    """B within bounds and O one of 1, 2, 4, 8 (R10.5)."""
    if base > MAX_BASE:
        raise invalid(f"{prefix}base", Reason.OUT_OF_RANGE, f"base is at most {MAX_BASE}, got {base}")
    if overturn not in OVERTURN_MULTIPLIERS:
        raise invalid(
            f"{prefix}overturn_multiplier", Reason.OUT_OF_RANGE, f"O is 1, 2, 4 or 8 (R10.5), got {overturn}"
        )


def _dealer_cards(
    hand_values: Sequence[int], bottom_values: Sequence[int]
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """R13.6 inputs: the cards buried for the dealer (the bottom he received) and his 25-card hand."""
    cards = convert.faces(hand_values, "dealer_hand")
    bottom = convert.faces(bottom_values, "bottom")
    if len(cards) == HAND_SIZE:
        if bottom:
            raise invalid(
                "bottom", Reason.INCONSISTENT, "a dealer with 25 cards has buried already; omit bottom"
            )
        return (), hand_of(cards)
    convert.sized(
        cards, "dealer_hand", DEALER_HAND_SIZE, DEALER_HAND_SIZE, "the dealer's hand (25 or 33 cards)"
    )
    convert.sized(bottom, "bottom", BOTTOM_SIZE, BOTTOM_SIZE, "the bottom the dealer received")
    held = list(cards)
    for i, face in enumerate(bottom):
        if face not in held:
            raise invalid(
                f"bottom[{i}]", Reason.INCONSISTENT, "the bottom he received is part of the dealer's 33 cards"
            )
        held.remove(face)
    hand, buried = auto_bury(hand33=hand_of(cards), bottom=bottom)
    return buried, hand


def _trick_problem(checks: Sequence[Legal | Illegal], leader: int) -> str:
    """Why a checked trick cannot be resolved, or "" when every play is legal and the lead stands."""
    for i, verdict in enumerate(checks):
        if isinstance(verdict, Illegal):
            return f"seat {(leader + i) % PLAYERS}'s play is illegal: {verdict.message}"
    lead = checks[0]
    if isinstance(lead, Legal) and lead.throw is not None and not lead.throw.succeeded:
        return "the lead is a throw that fails (R4.7): only its forced component is led"
    return ""


def _fill_check(judgement: pb.PlayJudgement, verdict: Legal | Illegal) -> None:
    """Record a play's check in its judgement."""
    judgement.checked = True
    if isinstance(verdict, Legal):
        judgement.legal = True
        if verdict.throw is not None:
            judgement.throw_outcome.CopyFrom(convert.throw_outcome(verdict.throw))
        return
    judgement.violation = convert.VIOLATIONS[verdict.reason]
    judgement.message = verdict.message


def _unresolved(problem: str, checks: Sequence[Legal | Illegal], leader: int) -> pb.ResolveTrickResponse:
    """A checked trick that is not resolved: each play's verdict, and why."""
    response = pb.ResolveTrickResponse(
        legal=False,
        message=problem,
        plays=[pb.PlayJudgement(seat=(leader + i) % PLAYERS) for i in range(PLAYERS)],
    )
    for judgement, verdict in zip(response.plays, checks, strict=False):
        _fill_check(judgement, verdict)
    return response
