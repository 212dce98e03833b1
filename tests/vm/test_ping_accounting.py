"""The peer's ping accounting (compsc_harness.mig.send_times, max_wait) on traces
built by hand: no VM. Every downtime the benches report goes through
these, so a wrong estimate would move every number silently."""
import math

from compsc_harness.mig import blackout_window, max_wait, send_times
from compsc_harness.vm import PingTrace

STEP = 0.05


def trace(sent: int, lost=(), rtt: dict = None) -> PingTrace:
    """@sent requests every STEP from t=0; those in @lost unanswered; each
    answered after 10 ms, or after @rtt[seq] s."""
    tr = PingTrace(interval=STEP, sent=sent)
    for seq in range(1, sent + 1):
        if seq in lost:
            continue
        t = (seq - 1) * STEP
        tr.replies.append((t + (rtt or {}).get(seq, 0.01), seq))
        tr.sent_at[seq] = t
    return tr


def test_send_times_interpolates_the_unanswered():
    est = send_times(trace(20, lost=range(8, 14)))
    assert [round(est[s], 3) for s in (7, 8, 10, 13, 14)] == [0.30, 0.35, 0.45, 0.60, 0.65]


def test_max_wait_is_the_outage_not_the_reply_gap():
    # seq 7's reply is 90 ms late, so replies arrive 0.40 and 0.66: a
    # 0.26 s arrival gap, while seq 8 (sent 0.35) waited until 0.66
    tr = trace(20, lost=range(8, 14), rtt={7: 0.1})
    assert round(tr.max_gap(0, 1), 3) == 0.26
    assert round(max_wait(tr, 0, 0.9), 3) == 0.31


def test_max_wait_counts_a_held_stretch_whole():
    # nothing lost, but everything sent from 0.20 to 0.75 (seqs 5-16) was
    # held in a ring and answered at 0.80: seq 5 waited 0.60 s
    tr = trace(20, rtt={s: 0.80 - (s - 1) * STEP for s in range(5, 17)})
    assert round(max_wait(tr, 0, 0.9), 3) == 0.6


def test_max_wait_a_single_late_reply_is_no_outage():
    # seq 5 answered at 0.80, but seq 6's answer came at 0.26: the peer
    # heard the guest again then
    tr = trace(20, rtt={5: 0.60})
    assert round(max_wait(tr, 0, 0.9), 3) == 0.06


def test_max_wait_only_counts_requests_in_the_window():
    tr = trace(40, lost=range(3, 8))
    assert round(max_wait(tr, 0.0, 0.5), 3) == 0.26      # seqs 3-7 lost
    assert round(max_wait(tr, 1.0, 1.9), 3) == 0.01      # a quiet stretch
    assert math.isnan(max_wait(tr, 5.0, 6.0))            # nothing sent then


def test_max_wait_ignores_requests_nobody_answered_yet():
    # the tail is still in flight: no later reply, no wait to measure
    tr = trace(20, lost=range(15, 21))
    assert round(max_wait(tr, 0, 2), 3) == 0.01


def test_blackout_window_starts_at_the_fence():
    # 2 ms waiting for the readers inside, then 100 ms held: new readers
    # waited all 102 ms, and the command returned up to 20 ms later
    a, b = blackout_window({"t_end": 10.0, "wait_ns": 2_000_000, "hold_ns": 100_000_000})
    assert (round(a, 3), b) == (9.878, 10.0)
