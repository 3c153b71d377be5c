"""The verdict across datasets beside Friedman and Nemenyi: Holm-corrected pairwise Wilcoxon
signed-rank tests and the Bayesian signed-rank test with a region of practical equivalence.

Both compare two schemes a and b on the N datasets through the per-dataset differences of
test error (%) d_i = err_a,i - err_b,i (negative: a made fewer errors), rounded to 1e-9
points so that float noise in the error percentages breaks no tie.

- Wilcoxon's signed-rank test (Demsar 2006, JMLR 7, section 3.1.3): the |d_i| are ranked
  (ties share the average rank); R+ sums the ranks of the datasets where a is better, R- those
  where b is better, and the ranks of zero differences are split evenly between them (scipy's
  ``zero_method="zsplit"``; Demsar also drops one zero when their number is odd, scipy does
  not). T = min(R+, R-); p is two-sided, exact for up to 50 datasets without ties or zero
  differences, else from the normal approximation (``scipy.stats.wilcoxon``, method "auto").
  Over the k(k-1)/2 pairs the p-values are corrected by Holm's step-down procedure (Holm 1979;
  Demsar 2006, section 3.2.2; Benavoli, Corani & Mangili 2016, JMLR 17(5), argue for it over
  the mean-ranks post-hoc tests): with the p-values sorted p_(1) <= ... <= p_(m), the adjusted
  p_(i) = min(1, max_{j <= i} (m - j + 1) p_(j)); a pair differs at level alpha when its
  adjusted p is below alpha, which bounds the family-wise error rate by alpha.
- The Bayesian signed-rank test (Benavoli, Mangili, Corani, Zaffalon & Ruggeri, ICML 2014;
  Benavoli, Corani, Demsar & Zaffalon 2017, "Time for a change", JMLR 18(77), section 5):
  a Dirichlet process posterior on the distribution of d, with prior strength s = 0.5 on a
  pseudo-observation d_0 = 0. Each posterior sample draws weights w ~ Dirichlet(s, 1, ..., 1)
  over (d_0, d_1, ..., d_N) and gives
  theta_left = sum_ij w_i w_j [d_i + d_j < -2 r] (a better by more than the ROPE r),
  theta_right = sum_ij w_i w_j [d_i + d_j > 2 r] (b better) and
  theta_rope = 1 - theta_left - theta_right, a sum exactly on a bound counting half to each
  side (sums within 1e-9 points of it count as on it: float noise of the error percentages).
  P(left), P(rope) and P(right) are the fractions of samples in which that theta is the
  largest of the three (the first on a tie), as ``baycomp.SignedRankTest`` (Benavoli et al.'s
  package) computes them; drawn with ``numpy.random.RandomState(seed).dirichlet`` as baycomp
  does, so the same seed gives baycomp's samples. A probability above 0.95 is read as a
  decision: a better, practically equivalent, or b better (Benavoli et al. 2017, section 5);
  otherwise the data do not decide.

The ROPE r is in points of test error (1 point of accuracy = 1 percentage point of error; the
config key ``rope``, default 1). The pairs are formed with a the better-ranked scheme (lower
average rank, the table's order on a tie), so "left" is always the better-ranked scheme.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from ..base.errors import MultisvmError
from ..base.numeric import is_count, is_number
from ..base.parallel import single_threaded_blas
from .ranking import _check, errors_table, ranking_text
from .record import label

DEFAULT_ROPE = 1.0          # points of test error (%): 1 point of accuracy
N_SAMPLES = 50_000          # posterior samples per pair (baycomp's default)
PRIOR = 0.5                 # the Dirichlet process' prior strength at d_0 = 0 (baycomp's)
DECIDE = 0.95               # a posterior probability read as a decision
CHUNK = 8192                # posterior samples per block of matrix products
ON_BOUND = 1e-9             # points of error: a pair sum this close to +-2r is on the bound
OUTCOMES = ("p_left", "p_rope", "p_right")


def compare_pairs(errors: pd.DataFrame, rope: float = DEFAULT_ROPE, alpha: float = 0.05,
                  seed: int = 0, n_samples: int = N_SAMPLES) -> dict:
    """Every pair of the schemes (columns) of ``errors`` (datasets x schemes, test error %)
    under Holm-corrected Wilcoxon signed-rank tests and the Bayesian signed-rank test.

    Returns plain data (JSON-ready): ``alpha``, ``rope``, ``n_datasets``, ``bayes``
    {samples, prior, seed, decide} and ``pairs``: one record per pair, in the order of
    :func:`pairs_in_order`: {a, b, wins: [datasets a better, tied, b better],
    mean_difference (mean err_a - err_b, points), wilcoxon: {statistic (T), r_plus (a better),
    r_minus, p_value, p_holm}, bayes: {p_left, p_rope, p_right}}.
    """
    values = _check(errors, alpha)
    if not is_number(rope) or rope < 0:
        raise MultisvmError(f"rope must be a number of points >= 0 (got {rope!r}); use e.g. 1")
    schemes = [str(s) for s in errors.columns]
    pairs = []
    for i, j in pairs_in_order(values):
        differences = np.round(values[:, i] - values[:, j], 9)  # float noise breaks no tie
        pairs.append({"a": schemes[i], "b": schemes[j],
                      "wins": [int(np.sum(differences < 0)), int(np.sum(differences == 0)),
                               int(np.sum(differences > 0))],
                      "mean_difference": float(differences.mean()),
                      "wilcoxon": signed_rank(differences),
                      "bayes": bayes_signed_rank(differences, rope, seed=seed,
                                                 n_samples=n_samples)})
    adjusted = holm([pair["wilcoxon"]["p_value"] for pair in pairs])
    for pair, p_holm in zip(pairs, adjusted):
        pair["wilcoxon"]["p_holm"] = p_holm
    return {"alpha": float(alpha), "rope": float(rope), "n_datasets": int(values.shape[0]),
            "bayes": {"samples": int(n_samples), "prior": PRIOR, "seed": int(seed),
                      "decide": DECIDE},
            "pairs": pairs}


def pairs_in_order(values: np.ndarray) -> list[tuple[int, int]]:
    """The (i, j) column pairs of ``values`` (datasets x schemes, errors), i the better
    average rank (Demsar's ranks, 1 = lowest error; the column order on a tie), listed in the
    order of i's rank, then j's."""
    ranks = stats.rankdata(values, axis=1).mean(axis=0)
    order = sorted(range(values.shape[1]), key=lambda s: (ranks[s], s))
    return [(order[a], order[b]) for a in range(len(order)) for b in range(a + 1, len(order))]


def signed_rank(differences) -> dict:
    """Wilcoxon's signed-rank test of ``differences`` (err_a - err_b per dataset), zero
    differences split (Demsar 2006, 3.1.3): {statistic: T = min(R+, R-), r_plus (ranks where a
    is better, d < 0), r_minus, p_value (two-sided)}; p = 1 when every difference is zero."""
    d = np.asarray(differences, dtype=float)
    ranks = stats.rankdata(np.abs(d))
    zeros = ranks[d == 0].sum() / 2.0
    r_plus, r_minus = ranks[d < 0].sum() + zeros, ranks[d > 0].sum() + zeros
    if np.all(d == 0):
        p_value = 1.0
    else:
        p_value = float(stats.wilcoxon(d, zero_method="zsplit").pvalue)
    return {"statistic": float(min(r_plus, r_minus)), "r_plus": float(r_plus),
            "r_minus": float(r_minus), "p_value": p_value}


def holm(p_values) -> list[float]:
    """Holm's (1979) step-down adjusted p-values, in the order given: sorted ascending,
    p_(i) becomes min(1, max_{j <= i} (m - j + 1) p_(j))."""
    p = np.asarray(p_values, dtype=float)
    m = p.size
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    adjusted = np.empty(m)
    adjusted[order] = scaled
    return adjusted.tolist()


def bayes_signed_rank(differences, rope=DEFAULT_ROPE, *, seed=0, n_samples=N_SAMPLES,
                      prior=PRIOR) -> dict:
    """The Bayesian signed-rank test of ``differences`` (err_a - err_b per dataset, points)
    with a ROPE of +-``rope`` points: {p_left (a better), p_rope, p_right (b better)}, each the
    fraction of ``n_samples`` posterior samples in which that region's probability is the
    largest (see the module's docstring). The samples are drawn in blocks of :data:`CHUNK`:
    theta_left of a block of weights W is rowsum((W @ H_left) * W), one matrix product."""
    z = np.concatenate(([0.0], np.asarray(differences, dtype=float)))
    sums = z[:, None] + z[None, :]
    below, above = _side(-sums, 2.0 * rope), _side(sums, 2.0 * rope)
    weights = np.ones(z.size)
    weights[0] = prior
    random = np.random.RandomState(seed)
    counts = np.zeros(3, dtype=np.int64)
    with single_threaded_blas():  # (N+1) x (N+1) products: BLAS threads would only wait
        for start in range(0, n_samples, CHUNK):
            w = random.dirichlet(weights, min(CHUNK, n_samples - start))
            left = np.einsum("si,si->s", w @ below, w)
            right = np.einsum("si,si->s", w @ above, w)
            theta = np.stack([left, 1.0 - left - right, right], axis=1)
            counts += np.bincount(np.argmax(theta, axis=1), minlength=3)
    return dict(zip(OUTCOMES, (counts / n_samples).tolist()))


def _side(sums, bound):
    """1 where a pair sum is beyond ``bound``, 1/2 where it is on it (within ON_BOUND)."""
    on = np.abs(sums - bound) <= ON_BOUND
    return np.where(on, 0.5, (sums > bound).astype(float))


def bayes_decision(bayes: dict, decide: float = DECIDE) -> str:
    """"left", "rope" or "right" when that posterior probability exceeds ``decide``, else
    "undecided"."""
    for outcome in OUTCOMES:
        if bayes[outcome] > decide:
            return outcome[2:]
    return "undecided"


def verdict_text(verdict: dict) -> str:
    """The lines printed under Friedman's: the Holm-corrected Wilcoxon pairs that differ (or
    the smallest adjusted p), then the Bayesian test: one line per decided pair, one line
    counting the undecided ones (every pair is in report.html and results.json)."""
    pairs, alpha, n = verdict["pairs"], verdict["alpha"], verdict["n_datasets"]
    significant = [p for p in pairs if p["wilcoxon"]["p_holm"] < alpha]
    line = (f"Wilcoxon signed-rank tests over the {n} datasets, Holm-corrected for "
            f"{len(pairs)} pair{'s' if len(pairs) > 1 else ''} (Demsar 2006): ")
    if significant:
        line += "; ".join(f"{_better(p)} (p = {p['wilcoxon']['p_value']:.3g}, Holm "
                          f"{p['wilcoxon']['p_holm']:.3g})" for p in significant) + "."
    else:
        low = min(pairs, key=lambda p: (p["wilcoxon"]["p_holm"], p["wilcoxon"]["p_value"]))
        line += (f"no pair differs at alpha = {alpha:g} (the closest: {label(low['a'])} vs "
                 f"{label(low['b'])}, p = {low['wilcoxon']['p_value']:.3g}, Holm-adjusted "
                 f"{low['wilcoxon']['p_holm']:.3g})")
        floor = 2.0 / 2.0**n
        line += (f"; with {n} datasets even an exact test cannot go below p = {floor:.3g}."
                 if floor >= alpha else ".")
    bayes = verdict["bayes"]
    rope = verdict["rope"]
    lines = [line, f"Bayesian signed-rank test over the {n} datasets (Benavoli et al. 2017), "
             f"ROPE = +-{rope:g} "
             f"point{'' if rope == 1 else 's'} of test error, {bayes['samples']:,} posterior "
             f"samples (seed "
             f"{bayes['seed']}): P(first better) / P(within the ROPE) / P(second better); "
             f"a decision where one exceeds {bayes['decide']:g}:"]
    decided = [p for p in pairs if bayes_decision(p["bayes"], bayes["decide"]) != "undecided"]
    for pair in decided:
        probs = " / ".join(f"{pair['bayes'][o]:.3f}" for o in OUTCOMES)
        lines.append(f"  {label(pair['a'])} vs {label(pair['b'])}: {probs} "
                     f"({decision_words(pair, bayes['decide'])})")
    n_open = len(pairs) - len(decided)
    if n_open:
        which = ("the other " if decided else "all " if n_open > 1 else "the ") + str(n_open)
        lines.append(f"  {which} pair{'s' if n_open > 1 else ''} undecided (every pair's "
                     f"probabilities: report.html, results.json)")
    return "\n".join(lines)


PAIR_HEADER = ("first", "second", "Wilcoxon p", "Holm p", "P(first better)", "P(ROPE)",
               "P(second better)", "Bayesian decision")


def verdict_rows(verdict: dict) -> list[tuple]:
    """Every pair of the verdict as a row of :data:`PAIR_HEADER` (texts), for report.html."""
    decide = verdict["bayes"]["decide"]
    return [(label(p["a"]), label(p["b"]), f"{p['wilcoxon']['p_value']:.3g}",
             f"{p['wilcoxon']['p_holm']:.3g}", *(f"{p['bayes'][o]:.3f}" for o in OUTCOMES),
             decision_words(p, decide)) for p in verdict["pairs"]]


def _better(pair) -> str:
    w = pair["wilcoxon"]
    first, second = (pair["a"], pair["b"]) if w["r_plus"] >= w["r_minus"] else (pair["b"],
                                                                                pair["a"])
    return f"{label(first)} better than {label(second)}"


def decision_words(pair, decide=DECIDE) -> str:
    """The Bayesian test's reading of ``pair``: "<first> better", "practically equivalent",
    "<second> better" or "undecided" (:func:`bayes_decision`)."""
    decision = bayes_decision(pair["bayes"], decide)
    return {"left": f"{label(pair['a'])} better", "right": f"{label(pair['b'])} better",
            "rope": "practically equivalent", "undecided": "undecided"}[decision]


def ranking_with_verdict(results: dict) -> dict | None:
    """The ranking of a run's results.json (as ``run_folder.read_results`` returns it) with
    its ``verdict``: as saved; for a run saved before the verdict existed, computed from the
    table rows' test errors with the default ROPE and seed 0 (a copy: ``results`` is left as it
    is). None when the run has no ranking (a single dataset or scheme, a sweep)."""
    ranking = results.get("ranking")
    if not ranking or ranking.get("verdict") is not None:
        return ranking or None
    errors = errors_table(results["table"]).reindex(columns=ranking["schemes"])
    return {**ranking, "verdict": compare_pairs(errors, alpha=ranking["alpha"])}


def across_datasets_text(ranking: dict) -> str:
    """Every line printed under the table about the schemes over datasets: the ranking's
    (``ranking.ranking_text``: average ranks, Friedman, Nemenyi), then its verdict's
    (:func:`verdict_text`) when it has one."""
    text = ranking_text(ranking)
    return text + ("\n" + verdict_text(ranking["verdict"]) if ranking.get("verdict") else "")


def verdict_problem(verdict, schemes) -> str | None:
    """What is wrong with a saved verdict (:func:`compare_pairs`) of ``schemes``, or None."""
    if not isinstance(verdict, dict) or not isinstance(verdict.get("pairs"), list):
        return "not an object with a list of pairs"
    if not all(map(is_number, (verdict.get("alpha"), verdict.get("rope")))) or not is_count(
            verdict.get("n_datasets"), 1):
        return "alpha, rope or n_datasets is not a number"
    bayes = verdict.get("bayes")
    if not isinstance(bayes, dict) or not is_count(bayes.get("samples"), 1) or not all(
            is_number(bayes.get(k)) for k in ("prior", "seed", "decide")):
        return "bayes is not {samples, prior, seed, decide}"
    for pair in verdict["pairs"]:
        if not isinstance(pair, dict) or pair.get("a") not in schemes or pair.get(
                "b") not in schemes:
            return "a pair does not name two of the ranking's schemes"
        tests = (pair.get("wilcoxon"), ("statistic", "r_plus", "r_minus", "p_value", "p_holm")), \
            (pair.get("bayes"), OUTCOMES)
        if not all(isinstance(t, dict) and all(is_number(t.get(k)) for k in keys)
                   for t, keys in tests):
            return f"the {pair['a']} vs {pair['b']} pair's wilcoxon or bayes numbers are missing"
    return None
