"""Run a call that may never return, and give up on it after a time limit.

The libraries of chapter 12 sample by rejection with an acceptance rate that
can fall below 1e-20, so a call to them may not return in any useful time.
The experiments do not decide anything from elapsed time: they cap each
release in proposals (:mod:`dppca.book.peers`, *Work caps*), which gives the
same
outcome on every machine. A clock is used only to test a claim that a call
*never* returns (:func:`assert_does_not_return`): a slower or busier machine
can only make such a check pass, never fail, and its outcome decides nothing
else.
"""

from __future__ import annotations


class TimeLimitExceeded(RuntimeError):
    """A library call did not return within its time limit."""


def call_with_time_limit(seconds: float, fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` run in a forked child process, abandoned (the
    child terminated)
    with :class:`TimeLimitExceeded` if it has not returned after ``seconds``.

    A process boundary, not a signal: OpenDP draws its random bytes through a
    ctypes callback, and an exception raised there by an alarm is swallowed or
    aborts the interpreter. The child works on a copy of the caller's state, so
    a seeded ``rng`` passed in is not advanced. Used to measure samplers that
    may not return at all. Unix only (``fork``).
    """
    import multiprocessing

    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)

    def work():
        try:
            sender.send(("ok", fn(*args, **kwargs)))
        except BaseException as error:  # noqa: BLE001 - reported to the parent
            sender.send(("error", repr(error)))

    child = context.Process(target=work, daemon=True)
    child.start()
    sender.close()
    try:
        if receiver.poll(float(seconds)):
            status, value = receiver.recv()
            if status == "ok":
                return value
            raise RuntimeError(f"the call failed in the child process: {value}")
        raise TimeLimitExceeded(f"no result within {seconds:g} s")
    finally:
        if child.is_alive():
            child.terminate()
        child.join()
        receiver.close()


def assert_does_not_return(seconds: float, fn, *args, **kwargs) -> None:
    """Check the claim that ``fn(*args, **kwargs)`` does not return: run it
    for ``seconds`` (:func:`call_with_time_limit`) and raise AssertionError
    if it returns (or fails) within that time. Returns None otherwise, so a
    caller cannot branch on the clock; a slower machine can only make the
    check pass."""
    try:
        call_with_time_limit(seconds, fn, *args, **kwargs)
    except TimeLimitExceeded:
        return None
    raise AssertionError(f"the call returned within {seconds:g} s")
