"""Signals reach the stop and reload events whenever they come.

The supervisor and every worker stop (or reload) on an event that a signal handler sets; a handler runs
in the main thread between two bytecodes, so it can land while that thread holds the event's own lock.
"""

from __future__ import annotations

import subprocess
import sys

from loadtest.server import python_env

_SIGNAL_STORM = """
import os, signal, sys, threading, time
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
if child == 0:
    signal.signal(signal.SIGUSR1, signal.SIG_DFL)
    end = time.monotonic() + 2
    while time.monotonic() < end:
        os.kill(parent, signal.SIGUSR1)
        time.sleep(0.0002)
    os._exit(0)
end = time.monotonic() + 2
while time.monotonic() < end:
    event.wait(1e-5)
os.waitpid(child, 0)
print(handled, flush=True)
"""


def _storm(kind: str) -> tuple[int, str]:
    """Run the storm with ``kind`` of event: its exit status and output; -1 when it hung."""
    args = [sys.executable, "-c", _SIGNAL_STORM, kind]
    try:
        done = subprocess.run(args, env=python_env(), capture_output=True, text=True, timeout=15, check=False)
    except subprocess.TimeoutExpired:
        return -1, ""
    return done.returncode, done.stdout.strip() or done.stderr[-2000:]


def test_a_signal_handler_can_set_the_stop_event_while_the_main_thread_waits_on_it() -> None:
    """The supervisor and every worker wait on an event that their SIGTERM (SIGHUP) handler sets. A
    handler runs in the main thread, possibly while it holds the event's lock inside ``wait``; with
    ``threading.Event`` (a plain lock) that hangs the process (here the handler blocks, and the next
    signals pile up in it until the recursion limit or the timeout). Thousands of signals against
    ``SignalEvent`` all go through; the plain event, run the same way, fails (the storm does reach the
    window)."""
    code, out = _storm("fixed")
    assert code == 0 and int(out) > 1000, (code, out)
    code, out = _storm("plain")
    assert code != 0, out
