"""bench/stats.py - what a paired comparison of two runtimes can claim.

On a shared 2-vCPU VM one run of a workload varies by 10-20 % from the
next, so `ab.py` compares two builds round by round (both run in every
round, in alternating order) and judges the per-round ratios.  Nothing here
assumes a distribution for them: the median's confidence interval comes
from order statistics and the sign test from the binomial distribution,
both exact (Conover, Practical Nonparametric Statistics, 3rd ed., 3.2-3.4).
"""
import math
import statistics


def binomial_cdf(k, n):
    """P(X <= k) for X ~ Binomial(n, 1/2), exactly (as a float)."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    return sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n


def sign_test(below, n):
    """Two-sided p of the sign test: `below` of n rounds (ties left out)
    had the candidate faster.  1.0 when n is 0."""
    if n == 0:
        return 1.0
    k = min(below, n - below)
    return min(1.0, 2 * binomial_cdf(k, n))


def median_ci_ranks(n, level=0.95):
    """The 1-based ranks (lo, hi) of the sorted sample that bound a
    distribution-free confidence interval of at least `level` for the
    median, the narrowest symmetric one; None when n is too small for
    any (n < 6 at 95 %)."""
    best = None
    for r in range(1, n // 2 + 1):
        coverage = 1 - 2 * binomial_cdf(r - 1, n)
        if coverage < level:
            break
        best = (r, n + 1 - r)
    return best


def compare(base, cand, level=0.95):
    """Per-round ratios cand/base of two equally long lists of times:
    a dict with n, the median ratio, its confidence interval (lo, hi, or
    None), the rounds where cand was faster and slower, and the sign
    test's p."""
    if len(base) != len(cand):
        raise ValueError("compare: two lists of one length")
    pairs = [(b, c) for b, c in zip(base, cand) if b > 0]  # a time of 0: no ratio
    if not pairs:
        raise ValueError("compare: no round with a baseline time above 0")
    ratios = sorted(c / b for b, c in pairs)
    n = len(ratios)
    ranks = median_ci_ranks(n, level)
    faster = sum(1 for b, c in pairs if c < b)
    slower = sum(1 for b, c in pairs if c > b)
    return {
        "n": n,
        "median": statistics.median(ratios),
        "ci": (ratios[ranks[0] - 1], ratios[ranks[1] - 1]) if ranks else None,
        "faster": faster,
        "slower": slower,
        "p": sign_test(faster, faster + slower),
    }


def overhead_ratio(bare, dummy, cand, level=0.95):
    """R, what cand adds to bare over what dummy adds, judged round by
    round: each round's (cand - bare) / (dummy - bare) from the three
    times that round ran, then the median and its distribution-free
    interval (median_ci_ranks), as compare() does for a ratio.  Where
    dummy adds little, R is a quotient of two small differences: a few
    per cent of noise in a round moves it by half, and the median of one
    run's ratios can land anywhere in that spread, so the interval says
    what the rounds allow.  A round where dummy took no longer than bare
    has no R; it counts as an infinite one, which can only raise the
    median and the interval's ends, and `undefined` says how many there
    were.  A dict with n, median, ci
    (lo, hi, or None) and undefined."""
    if not (len(bare) == len(dummy) == len(cand)) or not bare:
        raise ValueError("overhead_ratio: three lists of one length, not empty")
    rs = sorted((c - b) / (d - b) if d > b else math.inf for b, d, c in zip(bare, dummy, cand))
    n = len(rs)
    ranks = median_ci_ranks(n, level)
    return {
        "n": n,
        "median": statistics.median(rs),
        "ci": (rs[ranks[0] - 1], rs[ranks[1] - 1]) if ranks else None,
        "undefined": sum(1 for b, d in zip(bare, dummy) if d <= b),
    }


def describe(label, base_label, c, level=0.95):
    """One line for a comparison from compare()."""
    ci = ("%d %% CI %.3f-%.3f" % (round(level * 100), c["ci"][0], c["ci"][1])
          if c["ci"] else "no CI with %d rounds" % c["n"])
    return "%-12s / %-12s median %.3f  %s  faster in %d of %d rounds  sign test p = %.3g" % (
        label, base_label, c["median"], ci, c["faster"], c["n"], c["p"])
