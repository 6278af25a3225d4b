"""The client of the Tractor rules service: channels with the recommended settings, one typed error, the
ValidatePlay batchers, and card names.

>>> from tractor.rules.client import RulesError, channel, cards
>>> cards.names(cards.cards("SK SQ"))
['SK', 'SQ']

The generated messages and stubs are ``tractor.rules.v1``; the README of this distribution shows a call.
"""

from tractor.rules.client import cards
from tractor.rules.client.batching import DEFAULT_MAX_WAIT, MAX_BATCH_ITEMS, AsyncPlayBatcher, PlayBatcher
from tractor.rules.client.channel import (
    ATTEMPT_TIMEOUT,
    CHANNEL_OPTIONS,
    MAX_MESSAGE_BYTES,
    SERVICE_CONFIG,
    AioTypedErrors,
    TypedErrors,
    aio_channel,
    channel,
    options,
)
from tractor.rules.client.errors import DOMAIN, FieldViolation, RulesError

__all__ = [
    "ATTEMPT_TIMEOUT",
    "CHANNEL_OPTIONS",
    "DEFAULT_MAX_WAIT",
    "DOMAIN",
    "MAX_BATCH_ITEMS",
    "MAX_MESSAGE_BYTES",
    "SERVICE_CONFIG",
    "AioTypedErrors",
    "AsyncPlayBatcher",
    "FieldViolation",
    "PlayBatcher",
    "RulesError",
    "TypedErrors",
    "aio_channel",
    "cards",
    "channel",
    "options",
]
