#!/usr/bin/env bash
# Smoke test of the installed `multisvm` command, end to end: validate, datasets list,
# reproduce-table on a tiny config (and its files), resume from the cache, train + evaluate a
# model, a hand-altered model and a bad config refused with exit code 2.
# Prints `smoke: N passed, M failed`; exits non-zero on any failure. Takes well under a minute.
set -uo pipefail
cd "$(dirname "$0")/.."

PY="${PYTHON:-python}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
passed=0
failed=0

check() {  # check "what" command...: the command must succeed
    local what="$1"
    shift
    if "$@" >"$WORK/last.out" 2>"$WORK/last.err"; then
        passed=$((passed + 1))
        echo "ok    $what"
    else
        failed=$((failed + 1))
        echo "FAIL  $what"
        sed 's/^/      /' "$WORK/last.out" "$WORK/last.err" | tail -n 15
    fi
}

refused() {  # refused "what" command...: exit code 2 and exactly one line "error: ..." on stderr
    local what="$1"
    shift
    "$@" >"$WORK/last.out" 2>"$WORK/last.err"
    local code=$?
    if [ "$code" -eq 2 ] && [ "$(wc -l <"$WORK/last.err")" -eq 1 ] \
        && grep -q '^error: ' "$WORK/last.err"; then
        passed=$((passed + 1))
        echo "ok    $what ($(cat "$WORK/last.err"))"
    else
        failed=$((failed + 1))
        echo "FAIL  $what (exit $code)"
        sed 's/^/      /' "$WORK/last.err" | tail -n 15
    fi
}

cat >"$WORK/tiny.yaml" <<'EOF'
name: tiny
dataset: [iris, wine]
split: {test_fraction: 0.3, seed: 0}
kernels:
  - {type: gaussian, sigma: [1, 2]}
  - {type: linear}
C: [1, 10]
schemes: [ovr, maxwins, dag]
EOF
OUT="$WORK/results"

check "multisvm --version" multisvm --version
check "python -m multisvm_cli --help" "$PY" -m multisvm_cli --help
check "validate the quickstart config" \
    bash -c "multisvm validate quickstart | grep -q ': valid; '"
check "datasets list names usps and letter" \
    bash -c "multisvm datasets list | grep -q usps && multisvm datasets list | grep -q letter"
check "reproduce-table on a tiny config" \
    bash -c "multisvm reproduce-table '$WORK/tiny.yaml' --out '$OUT' --quiet > '$WORK/table.txt'"
check "the report has a row per dataset x scheme" \
    bash -c "[ \$(grep -cE '^(iris|wine) +(1-v-r|Max Wins|DAGSVM) ' '$WORK/table.txt') -eq 6 ]"

RUN="$(ls -d "$OUT"/tiny/2* 2>/dev/null | head -n 1)"
check "run folder holds every output file" bash -c "cd '$RUN' && \
    ls config.yaml grid.csv table.csv table.md results.json run.json >/dev/null"
check "grid.csv: 2 datasets x 6 points x 3 schemes" "$PY" - "$RUN" <<'EOF'
import sys, pandas as pd
grid = pd.read_csv(f"{sys.argv[1]}/grid.csv")
assert len(grid) == 36, len(grid)
assert set(grid.scheme) == {"ovr", "maxwins", "dag"} and set(grid.dataset) == {"iris", "wine"}
assert grid.validation_error.between(0, 1).all() and (grid.n_validation > 0).all()
EOF
check "table.csv, table.md and results.json agree" "$PY" - "$RUN" <<'EOF'
import json, sys, pandas as pd
run = sys.argv[1]
table = pd.read_csv(f"{run}/table.csv")
results = json.load(open(f"{run}/results.json"))
assert len(table) == 6 and list(table.columns[:4]) == ["dataset", "scheme", "kernel", "C"]
assert table.error_pct.between(0, 100).all() and (table.kernel_evaluations > 0).all()
for row, saved in zip(table.to_dict("records"), results["table"]):
    assert abs(row["error_pct"] - saved["error_pct"]) < 1e-9
    assert abs(row["size_k"] - saved["size_k"]) < 1e-9
dag = table[table.scheme == "dag"]
assert dag.mcnemar_p.isna().all() and table[table.scheme == "ovr"].mcnemar_p.between(0, 1).all()
markdown = open(f"{run}/table.md").read()
assert markdown.startswith("| dataset") and "DAGSVM" in markdown
assert set(results["checksums"]) == {"iris", "wine"}
EOF
check "run.json: status done, versions, seed, grid points" "$PY" - "$RUN" <<'EOF'
import json, sys
run = json.load(open(f"{sys.argv[1]}/run.json"))
assert run["status"] == "done" and run["seed"] == 0 and run["n_jobs"] == 1
assert run["libraries"]["scikit-learn"] and run["cpu"]["logical_cores"] >= 1
assert run["grid_points"] == {"total": 36, "cached": 0, "computed": 36}, run["grid_points"]
assert run["started"] <= run["ended"]
EOF
check "a second run resumes from the cache" bash -c "
    multisvm reproduce-table '$WORK/tiny.yaml' --out '$OUT' --quiet --format csv >/dev/null &&
    $PY -c \"import json, glob; r = json.load(open(sorted(glob.glob('$OUT/tiny/2*/run.json'))[-1]));
assert r['grid_points']['cached'] == 36, r\""
check "train a DAGSVM on wine" \
    multisvm train "$WORK/tiny.yaml" --scheme dag --dataset wine -o "$WORK/model" --out "$OUT" -q
check "the model folder holds model.json and model.npz" \
    bash -c "ls '$WORK/model/model.json' '$WORK/model/model.npz' >/dev/null"
check "evaluate the saved model with a confusion matrix" bash -c "
    multisvm evaluate '$WORK/model' --confusion > '$WORK/eval.txt' &&
    grep -q '^error rate: ' '$WORK/eval.txt' && grep -q 'confusion matrix' '$WORK/eval.txt' &&
    grep -q 'data: wine test, 54 points' '$WORK/eval.txt'"
cp -r "$WORK/model" "$WORK/altered"
"$PY" - "$WORK/altered" <<'EOF'
import json, sys
path = f"{sys.argv[1]}/model.json"
meta = json.load(open(path))
meta["format_version"] = 999
json.dump(meta, open(path, "w"))
EOF
refused "a hand-altered model is refused" multisvm evaluate "$WORK/altered"
printf 'dataset: iris\nkernels: [{type: gaussian, sigma: 0}]\nC: [1]\nschemes: [ovr]\n' \
    >"$WORK/bad.yaml"
refused "a bad config is refused" multisvm reproduce-table "$WORK/bad.yaml" --out "$OUT"
refused "a missing config is refused" multisvm validate "$WORK/missing.yaml"

echo "smoke: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
