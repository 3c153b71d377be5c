"""Ranking the schemes over datasets: average ranks, Friedman's test, Nemenyi's critical difference.

Demsar (2006), "Statistical comparisons of classifiers over multiple data sets", JMLR 7:1-30:

- On each dataset the k schemes are ranked by test error, 1 = lowest error; tied schemes get the
  average of the ranks they span (``scipy.stats.rankdata``). R_j is scheme j's rank averaged
  over the N datasets.
- Friedman's test (k >= 3): under the null hypothesis that all schemes are equivalent, the
  statistic chi2_F = 12N / (k(k+1)) * [sum_j R_j^2 - k(k+1)^2 / 4] is chi-square with k - 1
  degrees of freedom. ``scipy.stats.friedmanchisquare`` computes it with the usual correction
  for ties within a dataset (equal to Demsar's formula when no dataset has ties). Demsar also
  gives Iman and Davenport's F_F = (N-1) chi2_F / (N(k-1) - chi2_F), F-distributed with k - 1
  and (k-1)(N-1) degrees of freedom, which is less conservative; both are reported.
- Nemenyi's post-hoc test: two schemes differ significantly when their average ranks differ by
  more than the critical difference CD = q_alpha * sqrt(k(k+1) / (6N)), where q_alpha is the
  studentized range statistic for k groups and infinite degrees of freedom divided by sqrt(2).
  Pairwise p-values: p = P(Q > |R_i - R_j| sqrt(2) / sqrt(k(k+1)/(6N))) for Q the studentized
  range of k groups and infinite degrees of freedom (``scipy.stats.studentized_range.sf``; the
  same numbers as ``scikit_posthocs.posthoc_nemenyi_friedman``, which multisvm no longer needs).
- With k = 2 schemes Demsar recommends the Wilcoxon signed-rank test on the per-dataset
  differences instead (``scipy.stats.wilcoxon``); no CD is computed then.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats

from ..base.errors import MultisvmError
from .record import ERROR_PCT, label


def errors_table(rows) -> pd.DataFrame:
    """Datasets x schemes test error (%) from report rows (``table.table_rows``); rows without
    our own ``error_pct`` (the paper's baselines) are left out."""
    ours = [r for r in rows if r.get(ERROR_PCT) is not None]
    if not ours:
        raise MultisvmError("no report row has an error_pct to rank; run the protocol first")
    frame = pd.DataFrame(ours)
    return frame.pivot_table(index="dataset", columns="scheme", values=ERROR_PCT,
                             aggfunc="first", sort=False)


def rank_schemes(errors: pd.DataFrame, alpha: float = 0.05) -> dict:
    """Average ranks of the schemes (columns) over the datasets (rows) of ``errors`` (error %).

    Returns plain data (JSON-ready): ``schemes``, ``average_ranks`` {scheme: rank},
    ``n_datasets``, ``alpha``, ``friedman`` {test, statistic, p_value} (the Wilcoxon signed-rank
    test when there are only 2 schemes; ``test`` says which), ``iman_davenport``
    {statistic (None when infinite), p_value} (None for 2 schemes), ``critical_difference``
    (Nemenyi, None for 2 schemes), ``nemenyi_p`` {a: {b: p}} (None for 2 schemes) and
    ``different_pairs``: [a, b] pairs whose average ranks differ by more than the CD (for 2
    schemes: the pair when the Wilcoxon p-value is below ``alpha``), the better-ranked scheme
    first.
    """
    values = _check(errors, alpha)
    schemes = [str(s) for s in errors.columns]
    n, k = values.shape
    ranks = stats.rankdata(values, axis=1).mean(axis=0)
    result = {"schemes": schemes,
              "average_ranks": {s: float(r) for s, r in zip(schemes, ranks)},
              "n_datasets": int(n), "alpha": float(alpha)}
    if k == 2:
        result.update(_wilcoxon(values, schemes, alpha))
        return result
    cd = critical_difference(k, n, alpha)
    result.update(friedman=_friedman(values), critical_difference=cd,
                  nemenyi_p=_nemenyi(values, schemes),
                  different_pairs=_pairs_beyond(schemes, ranks, cd))
    result["iman_davenport"] = _iman_davenport(result["friedman"]["statistic"], n, k)
    return result


def critical_difference(k: int, n: int, alpha: float = 0.05) -> float:
    """Nemenyi's CD = q_alpha sqrt(k(k+1)/(6N)), q_alpha = studentized range(1-alpha; k, inf)/sqrt 2."""
    q_alpha = stats.studentized_range.ppf(1.0 - alpha, k, np.inf) / math.sqrt(2.0)
    return float(q_alpha * math.sqrt(k * (k + 1) / (6.0 * n)))


def _check(errors, alpha) -> np.ndarray:
    if not isinstance(errors, pd.DataFrame):
        raise MultisvmError("rank_schemes needs a pandas DataFrame of datasets x schemes")
    if not 0.0 < alpha < 1.0:
        raise MultisvmError(f"alpha must be between 0 and 1 (got {alpha}); use e.g. 0.05")
    n, k = errors.shape
    if k < 2 or n < 2:
        raise MultisvmError(f"ranking needs at least 2 schemes on at least 2 datasets (got {k} "
                            f"schemes, {n} datasets); add datasets or schemes to the config")
    values = errors.to_numpy(dtype=float)
    if not np.all(np.isfinite(values)):
        where = ", ".join(f"{errors.index[i]}/{errors.columns[j]}"
                          for i, j in zip(*np.nonzero(~np.isfinite(values))))
        raise MultisvmError(f"no test error for {where}; every scheme must have run on every "
                            "dataset to be ranked")
    return values


def _friedman(values) -> dict:
    if np.all(values == values[:, :1]):  # every scheme tied on every dataset: nothing differs
        return {"test": "Friedman chi-square", "statistic": 0.0, "p_value": 1.0}
    statistic, p_value = stats.friedmanchisquare(*values.T)
    return {"test": "Friedman chi-square", "statistic": float(statistic),
            "p_value": float(p_value)}


def _iman_davenport(chi2, n, k) -> dict:
    """F_F = (N-1) chi2_F / (N(k-1) - chi2_F) with k-1 and (k-1)(N-1) degrees of freedom.

    When every dataset ranks the schemes alike (no ties), chi2_F = N(k-1) and F_F is infinite
    (saved as None: results.json is strict JSON); the F approximation's p = 0 would then claim
    far more than N datasets can show, so the p-value is the exact one of that agreement under
    the null (each dataset's ranking one of k! orders, equally likely): (k!)^(1-N)."""
    denominator = n * (k - 1) - chi2
    if denominator <= 0:
        return {"statistic": None, "p_value": float(math.factorial(k) ** (1.0 - n))}
    f_f = (n - 1) * chi2 / denominator
    return {"statistic": float(f_f),
            "p_value": float(stats.f.sf(f_f, k - 1, (k - 1) * (n - 1)))}


def _nemenyi(values, schemes) -> dict:
    """Nemenyi's pairwise p-values from the average ranks (1 on the diagonal)."""
    n, k = values.shape
    ranks = stats.rankdata(values, axis=1).mean(axis=0)
    q = np.abs(ranks[:, None] - ranks[None, :]) / math.sqrt(k * (k + 1) / (6.0 * n))
    p = stats.studentized_range.sf(q * math.sqrt(2.0), k, np.inf)
    np.fill_diagonal(p, 1.0)
    return {a: {b: float(p[i, j]) for j, b in enumerate(schemes)} for i, a in enumerate(schemes)}


def _pairs_beyond(schemes, ranks, cd) -> list:
    pairs = []
    for i in range(len(schemes)):
        for j in range(i + 1, len(schemes)):
            if abs(ranks[i] - ranks[j]) > cd:
                better, worse = (i, j) if ranks[i] < ranks[j] else (j, i)
                pairs.append([schemes[better], schemes[worse]])
    return pairs


def _wilcoxon(values, schemes, alpha) -> dict:
    differences = values[:, 0] - values[:, 1]
    if np.all(differences == 0):
        statistic, p_value = 0.0, 1.0
    else:
        statistic, p_value = stats.wilcoxon(values[:, 0], values[:, 1], zero_method="zsplit")
    better = schemes[0] if np.sum(differences < 0) >= np.sum(differences > 0) else schemes[1]
    worse = schemes[1] if better == schemes[0] else schemes[0]
    return {"friedman": {"test": "Wilcoxon signed-rank", "statistic": float(statistic),
                         "p_value": float(p_value)},
            "iman_davenport": None, "critical_difference": None, "nemenyi_p": None,
            "different_pairs": [[better, worse]] if p_value < alpha else []}


def ranking_text(ranking: dict) -> str:
    """The lines printed below the table: average ranks, the test, the CD and the pairs."""
    ranks = ranking["average_ranks"]
    order = sorted(ranks, key=ranks.get)
    test = ranking["friedman"]
    lines = [f"Average rank over {ranking['n_datasets']} datasets (1 = lowest test error; "
             "ties share the average rank): "
             + ", ".join(f"{label(s)} {ranks[s]:.2f}" for s in order)]
    k = len(ranking["schemes"])
    if ranking.get("critical_difference") is None:
        lines.append(f"{test['test']} test (Demsar 2006, two schemes): "
                     f"statistic = {test['statistic']:.4g}, p = {test['p_value']:.3g}.")
    else:
        line = (f"Friedman chi-square = {test['statistic']:.4g} ({k - 1} df), "
                f"p = {test['p_value']:.3g}")
        if ranking.get("iman_davenport"):
            iman = ranking["iman_davenport"]
            if iman["statistic"] is None:
                line += (f"; Iman-Davenport F = inf (every dataset ranks the schemes alike; "
                         f"the exact p of that, (k!)^(1-N), is {iman['p_value']:.3g})")
            else:
                line += (f"; Iman-Davenport F = {iman['statistic']:.4g}, "
                         f"p = {iman['p_value']:.3g}")
        lines.append(line + ".")
        lines.append(f"Nemenyi critical difference at alpha = {ranking['alpha']:g}: "
                     f"CD = {ranking['critical_difference']:.3f} ranks (Demsar 2006).")
    caution = small_sample_caution(ranking["n_datasets"], k)
    if caution:
        lines.append(caution)
    pairs = ranking["different_pairs"]
    lines.append("Significantly different: " + ("; ".join(
        f"{label(a)} better than {label(b)}" for a, b in pairs) if pairs else
        f"no pair at alpha = {ranking['alpha']:g}") + ".")
    return "\n".join(lines)


def small_sample_failures(n: int, k: int) -> list[tuple[str, str]]:
    """The conditions of Friedman's chi-square approximation (Demsar 2006, section 3.2.2:
    N > 10 datasets and k > 5 schemes) that ``n`` datasets and ``k`` schemes fail, each as
    (what there is, what is asked), e.g. ``("3 datasets", "N > 10 datasets")``; empty when
    both hold."""
    failures = []
    if n <= 10:
        failures.append((f"{n} datasets", "N > 10 datasets"))
    if k <= 5:
        failures.append((f"{k} schemes", "k > 5 schemes"))
    return failures


def small_sample_caution(n: int, k: int) -> str:
    """A caution naming only the conditions of Friedman's chi-square approximation (Demsar
    2006, section 3.2.2: N > 10 datasets, k > 5 schemes) that N datasets and k schemes fail,
    else ``""``."""
    failures = small_sample_failures(n, k)
    if not failures:
        return ""
    have = " and ".join(have for have, _ in failures)
    asked = " and ".join(asked for _, asked in failures)
    return (f"Caution: {have} are too few for Friedman's chi-square "
            f"approximation (Demsar 2006 asks for {asked}; below that use exact critical "
            "values): the test has little power here, and no significant pair does not mean "
            "the schemes are equivalent.")
