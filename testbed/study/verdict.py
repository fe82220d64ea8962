# SPDX-License-Identifier: BSD-3-Clause
"""verdict.py: the one rule by which the study's report decides.

The report (testbed/study/report.py) compares schemes by their means over
the seeds.  Every comparison it makes goes through compare() below, and
every verdict it gives (the four findings, the training jobs, the loss
recovery) is settled from those comparisons by settle(): one rule,
written once here and stated in the report (rule_html()) and in
docs/reproducing.md.

A comparison of means a and b (lower is better), each with the
half-width h of its 95 % confidence interval over n seeds (Student's t,
as ofan-fabric computes it) and a tie threshold T:
  - a is lower (b higher) only where the means differ by more than T
    and the two intervals do not overlap;
  - a tie only where even the intervals' far ends are within T;
  - not decisive otherwise, and always with a single seed (no interval).
T is relative (of the lower mean) or absolute.  A not-decisive
comparison carries the seeds that would decide it: the smallest n with
t(0.975, n - 1) * s / sqrt(n) < w, where s is the larger of the two
standard deviations (s = h * sqrt(n0) / t(0.975, n0 - 1) over the n0
seeds that ran) and w the half-width that decides it: half the
difference of the means where it exceeds T (the intervals then part),
half the room between the difference and T where it does not (the far
ends then fall within T).

A finding is a condition on its comparisons' checks (True: the
comparison came out as the finding says; False: decisively otherwise;
None: not decisive).  It holds where the condition is met with every
not-decisive check counted against it, does not hold where the
condition fails even with every not-decisive check counted for it, and
is not decisive otherwise.

Standard library only; imported by report.py and by its test.
"""
import math

# Student's t quantile 0.975 for 1 .. 30 degrees of freedom, as
# fabric/emulator/fab_out.c's fab_t975() (the half-widths in summary.json).
_T975 = [0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
         2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110,
         2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
         2.052, 2.048, 2.045, 2.042]
_Z975 = 1.959964
SEEDS_MAX = 100000      # beyond this, "more than" it

LOWER, HIGHER, TIE = "lower", "higher", "tie"


def t975(df):
    """Student's t quantile 0.975 for df >= 1 degrees of freedom."""
    if df <= 30:
        return _T975[df]
    # Cornish-Fisher, within 0.001 of the table from 30 on (as the fabric).
    return _Z975 + (_Z975 ** 3 + _Z975) / (4.0 * df)


class Stat:
    """A mean over n seeds and the half-width of its 95 % confidence
    interval; exact for a bound that is not measured (no seeds)."""

    def __init__(self, mean, hw, n, exact=False):
        self.mean = float(mean)
        self.hw = float(hw) if n and n > 1 or exact else 0.0
        self.n = n
        self.exact = exact

    @classmethod
    def of(cls, values):
        """The mean and t-interval of a list of values (None if empty)."""
        n = len(values)
        if n == 0:
            return None
        m = sum(values) / n
        if n == 1:
            return cls(m, 0.0, 1)
        ss = sum((x - m) * (x - m) for x in values)
        return cls(m, t975(n - 1) * math.sqrt(ss / (n - 1)) / math.sqrt(n), n)

    @classmethod
    def bound(cls, value):
        """A fixed bound (a limit a finding sets), with no interval."""
        return cls(value, 0.0, None, exact=True)

    @property
    def lo(self):
        return self.mean - self.hw

    @property
    def hi(self):
        return self.mean + self.hw

    def measured(self):
        """True if the interval is known: a bound, or two or more seeds."""
        return self.exact or (self.n is not None and self.n > 1)

    def sd(self):
        """The standard deviation the interval implies (0 for a bound)."""
        if self.exact:
            return 0.0
        return self.hw * math.sqrt(self.n) / t975(self.n - 1)

    def text(self, nd=2, n=True):
        """mean ± half-width (n = seeds); a single seed has no interval."""
        if self.exact:
            return f"{self.mean:.{nd}f}"
        s = f"{self.mean:.{nd}f}"
        if self.n > 1:
            s += f" ± {self.hw:.{nd}f}"
        return s + (f" (n = {self.n})" if n else "")


class Cmp:
    """One comparison of a against b: outcome LOWER (a lower, decisively),
    HIGHER, TIE, or None (not decisive); seeds: the seeds that would
    decide it (None where more seeds cannot, "spread" where one seed
    gives no spread to estimate from)."""

    def __init__(self, a, b, tie, absolute, outcome, seeds):
        self.a, self.b = a, b
        self.tie, self.absolute = tie, absolute
        self.outcome = outcome
        self.seeds = seeds

    def diff_text(self, nd=2, unit=""):
        """a against b: relative (of b) for a relative threshold, else in
        the numbers' unit."""
        if self.absolute:
            return f"{self.a.mean - self.b.mean:+.{nd}f}{unit}"
        if self.b.mean == 0:
            return "—"
        return f"{100 * (self.a.mean - self.b.mean) / self.b.mean:+.1f} %"

    def seeds_text(self):
        """What would decide a not-decisive comparison ("" if decided)."""
        return seeds_text(self.seeds) if self.outcome is None else ""


def threshold(low, tie, absolute):
    """The tie threshold as a difference of means above the lower one."""
    return tie if absolute else tie * low


def compare(a, b, tie, absolute=False):
    """The rule: a against b (Stat each) with tie threshold tie (relative
    to the lower mean, or absolute).  See the module's text."""
    if not a.measured() or not b.measured():
        return Cmp(a, b, tie, absolute, None, "spread")
    low, high = (a, b) if a.mean <= b.mean else (b, a)
    thr = threshold(low.mean, tie, absolute)
    if high.mean - low.mean > thr and low.hi < high.lo:
        return Cmp(a, b, tie, absolute, LOWER if low is a else HIGHER, None)
    top, bottom = max(a.hi, b.hi), min(a.lo, b.lo)
    if top - bottom <= threshold(bottom, tie, absolute):
        return Cmp(a, b, tie, absolute, TIE, None)
    return Cmp(a, b, tie, absolute, None, seeds_needed(a, b, tie, absolute))


def seeds_needed(a, b, tie, absolute):
    """The seeds for both intervals to shrink below the half-width w that
    decides a against b (see the module's text); None if none would."""
    low, high = (a, b) if a.mean <= b.mean else (b, a)
    d = high.mean - low.mean
    thr = threshold(low.mean, tie, absolute)
    if d > thr:
        w = d / 2
    elif absolute:
        w = (tie - d) / 2
    else:
        # The far ends H + w and L - w within the threshold of L - w.
        w = ((1 + tie) * low.mean - high.mean) / (2 + tie)
    if w <= 0:
        return None
    s = max(a.sd(), b.sd())
    if s == 0:
        return None
    have = min(x.n for x in (a, b) if not x.exact)
    n = 2
    while t975(n - 1) * s / math.sqrt(n) >= w:
        n += 1
        if n > SEEDS_MAX:
            return SEEDS_MAX + 1
    return max(n, have + 1)


def seeds_text(seeds):
    """A not-decisive comparison's seeds, as the report writes them."""
    if seeds == "spread":
        return "2 or more to measure the spread"
    if seeds is None:
        return "none: the means sit on the threshold"
    if seeds > SEEDS_MAX:
        return f"more than {SEEDS_MAX:,}"
    return f"about {seeds}"


def most_seeds(cmps):
    """Of not-decisive comparisons, the seeds that would decide them all
    (the largest; "spread" or None first: no estimate covers them)."""
    nd = [c.seeds for c in cmps if c.outcome is None]
    for special in ("spread", None):
        if special in nd:
            return special
    return max(nd) if nd else 0


def check_not_higher(c):
    """'a is not higher than b' (a tie allowed)."""
    if c.outcome is None:
        return None
    return c.outcome != HIGHER


def check_tie(c):
    """'a and b are alike' (within the tie threshold)."""
    if c.outcome is None:
        return None
    return c.outcome == TIE


def check_higher(c):
    """'a is higher than b' (a grows against b)."""
    if c.outcome is None:
        return None
    return c.outcome == HIGHER


def group(a, b, tie, absolute=False):
    """Every scheme of a (name -> Stat) against every scheme of b: the
    pairs (name_a, name_b, Cmp), the checks 'every a lower than every b'
    (lower) and 'no a higher than any b' (not_higher), and the pair that
    decides them (the first of: a decisively higher, the not-decisive
    pair needing the most seeds, a tie, the closest pair)."""
    pairs = [(x, y, compare(a[x], b[y], tie, absolute))
             for x in a for y in b]
    outs = [c.outcome for _, _, c in pairs]
    if HIGHER in outs:
        not_higher = lower = False
    else:
        not_higher = None if None in outs else True
        lower = False if TIE in outs else None if None in outs else True

    def gap(p):
        return p[2].a.mean - p[2].b.mean
    higher = [p for p in pairs if p[2].outcome == HIGHER]
    nd = [p for p in pairs if p[2].outcome is None]
    ties = [p for p in pairs if p[2].outcome == TIE]
    if higher:
        shown = max(higher, key=gap)
    elif nd:
        worst = most_seeds([p[2] for p in nd])
        shown = max((p for p in nd if p[2].seeds == worst), key=gap)
    elif ties:
        shown = max(ties, key=gap)
    else:
        shown = max(pairs, key=gap)
    return {"pairs": pairs, "lower": lower, "not_higher": not_higher,
            "shown": shown, "seeds": most_seeds([p[2] for p in pairs])}


HOLDS, FAILS, UNDECIDED = "holds", "does not hold", "not decisive"


def settle(cond, checks):
    """A finding's verdict from its checks (name -> [True/False/None]) and
    its condition (a function of name -> [bool]): HOLDS where cond is met
    with every None counted False, FAILS where it fails even with every
    None counted True, UNDECIDED otherwise."""
    if cond({k: [c is True for c in v] for k, v in checks.items()}):
        return HOLDS
    if not cond({k: [c is not False for c in v] for k, v in checks.items()}):
        return FAILS
    return UNDECIDED


def rule_html(thresholds):
    """The rule as the report states it, once, above its verdicts;
    thresholds (HTML) names each kind of number's tie threshold."""
    return (
        "<p><strong>How the verdicts are decided.</strong> Every number a "
        "verdict compares is a mean over the seeds, shown as mean ± the "
        "half-width of its 95 % confidence interval (Student's t) with n, "
        "the number of seeds.  One scheme beats another (is lower) only "
        "where the difference of the means exceeds the tie threshold "
        "<em>and</em> the two intervals do not overlap; the two are a tie "
        "only where even the intervals' far ends are within the tie "
        "threshold; anything else is <span class=\"nd\">not "
        "decisive</span>, and so is every comparison of a single seed (it "
        "has no interval).  Tie thresholds: " + thresholds + "; a "
        "relative threshold is of the lower mean.  Beside a comparison "
        "that is not decisive: the seeds that would decide it, the "
        "smallest n with t<sub>0.975, n&minus;1</sub> &middot; s / "
        "&radic;n &lt; w, where s is the larger of the two schemes' "
        "standard deviations (s = h &middot; &radic;n<sub>0</sub> / "
        "t<sub>0.975, n<sub>0</sub>&minus;1</sub> from the half-width h "
        "over the n<sub>0</sub> seeds that ran) and w is half the "
        "difference of the means where it exceeds the threshold (the "
        "intervals then part), half the room left between the difference "
        "and the threshold where it does not (the tie then shows).  A "
        "finding <em>holds</em> where its rule is met with every "
        "not-decisive comparison counted against it, <em>does not "
        "hold</em> where its rule fails even with every not-decisive "
        "comparison counted for it, and is <em>not decisive</em> "
        "otherwise.</p>")
