"""Fit warnings name their own solver: the all-together solver's iteration bound is not
libsvm's (issue #41)."""


# ------------------------------------------------------- 17. warnings name their own solver

def test_a_joint_solvers_bound_is_named_as_its_own():
    from multisvm_cli.experiment.run.fit_notes import fit_warnings

    note = ["ConvergenceWarning: Solver terminated early (max_iter=5)"]
    results = [{"dataset": "iris", "scheme": scheme, "kernel": "linear", "C": 1.0, "notes": note}
               for scheme in ("cs", "ww", "ovr")]
    rows = [{**r, "notes": note[0]} for r in results]
    found = fit_warnings(results, rows)
    by_scheme = {scheme: [w for w in found if w.startswith(f"iris {scheme}:")]
                 for scheme in ("cs", "ww", "ovr")}
    for scheme in ("cs", "ww"):
        assert len(by_scheme[scheme]) == 2
        assert all("the all-together solver's iteration bound" in w and "libsvm" not in w
                   for w in by_scheme[scheme])
    assert all("libsvm's iteration bound" in w for w in by_scheme["ovr"])
