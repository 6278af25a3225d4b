"""Signals reach the stop and reload events whenever they come.

The supervisor and every worker stop (or reload) on an event that a signal handler sets; a handler runs
in the main thread between two bytecodes, so it can land while that thread holds the event's own lock.
"""

from __future__ import annotations

import subprocess
import sys

from loadtest.server import python_env

_STORM_SIGNALS = 3000

_SIGNAL_STORM = f"""
import os, signal, sys, threading, time
SIGNALS = {_STORM_SIGNALS}
from services.server import SignalEvent
event = threading.Event() if sys.argv[1] == "plain" else SignalEvent()
handled = 0
def on_signal(signum, frame):
    global handled
    handled += 1
    event.set()
    event.clear()
signal.signal(signal.SIGUSR1, on_signal)
parent = os.getpid()
child = os.fork()
if child == 0:  # a count of signals, not a duration: the test reads no clock
    signal.signal(signal.SIGUSR1, signal.SIG_DFL)
    for _ in range(SIGNALS):
        os.kill(parent, signal.SIGUSR1)
        time.sleep(0.0002)
    os._exit(0)
while os.waitpid(child, os.WNOHANG) == (0, 0):  # the main thread waits on the event all the while
    event.wait(1e-5)
print(handled, flush=True)
"""


# The window itself, reached on purpose: the main thread holds the event's lock (as ``wait`` does) when
# the signal arrives, so the handler's ``set()`` runs inside it.
_SIGNAL_IN_THE_LOCK = """
import signal, sys, threading
from services.server import SignalEvent
event = threading.Event() if sys.argv[1] == "plain" else SignalEvent()
lock = event._cond if sys.argv[1] == "plain" else event._condition
signal.signal(signal.SIGUSR1, lambda signum, frame: event.set())
with lock:
    signal.raise_signal(signal.SIGUSR1)
    held = [n for n in range(100)]
print(event.is_set(), flush=True)
"""


def _run(script: str, kind: str, timeout: float) -> tuple[int, str]:
    """Run ``script`` with ``kind`` of event: its exit status and output; -1 when it hung."""
    args = [sys.executable, "-c", script, kind]
    try:
        done = subprocess.run(
            args, env=python_env(), capture_output=True, text=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        return -1, ""
    return done.returncode, done.stdout.strip() or done.stderr[-2000:]


def test_a_signal_handler_can_set_the_stop_event_while_the_main_thread_waits_on_it() -> None:
    """The supervisor and every worker wait on an event that their SIGTERM (SIGHUP) handler sets. A
    handler runs in the main thread, possibly while it holds the event's lock inside ``wait``; with
    ``threading.Event`` (a plain lock) that hangs the process. A storm of 3000 signals against a
    waiting ``SignalEvent`` goes through: the process ends, having run the handler hundreds of times at
    least (signals that arrive before the handler runs merge into one, so not every one is counted)."""
    code, out = _run(_SIGNAL_STORM, "fixed", timeout=15)
    assert code == 0 and int(out) > _STORM_SIGNALS // 10, (code, out)


def test_the_handler_may_land_while_the_lock_is_held() -> None:
    """The storm's window, reached on purpose rather than by chance: a signal that arrives while the
    main thread holds the event's lock. ``SignalEvent`` takes the flag; the plain event hangs there,
    which is why the storm test means something."""
    assert _run(_SIGNAL_IN_THE_LOCK, "fixed", timeout=15) == (0, "True")
    assert _run(_SIGNAL_IN_THE_LOCK, "plain", timeout=3)[0] == -1
