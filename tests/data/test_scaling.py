"""Scaling: definitions, training statistics only, constant columns, state round trip."""

import io

import numpy as np
import pytest

from multisvm_cli import data
from multisvm_cli.data.scaling import METHODS, Scaler, make_scaler


pytestmark = pytest.mark.usefixtures("no_network")


@pytest.fixture(scope="module")
def letter(mirror, tmp_path_factory):
    return data.load("letter", mirror=mirror, data_home=tmp_path_factory.mktemp("home"))


def test_letter_training_part_spans_exactly_minus_one_to_one(letter):
    X_train, X_test = letter.parts["train"][0], letter.parts["test"][0]
    scaler = make_scaler("paper", letter.card).fit(X_train)
    assert scaler.method == "minmax"
    scaled = scaler.transform(X_train)
    np.testing.assert_array_equal(scaled.min(axis=0), -np.ones(16))
    np.testing.assert_array_equal(scaled.max(axis=0), np.ones(16))
    # the test part uses the training minimum and maximum, not its own
    low, high = X_train.min(axis=0), X_train.max(axis=0)
    expected = 2 * (X_test - low) / (high - low) - 1
    np.testing.assert_allclose(scaler.transform(X_test), expected, rtol=0, atol=1e-12)
    refitted = make_scaler("minmax", letter.card).fit_transform(X_test)
    assert not np.allclose(scaler.transform(X_test), refitted)


@pytest.mark.slow
def test_covertype_paper_scaling_standardises_only_continuous_columns(mirror, tmp_path):
    cover = data.load("covertype", parts=["train", "validation"], mirror=mirror,
                      data_home=tmp_path)
    X_train, X_val = cover.parts["train"][0], cover.parts["validation"][0]
    scaler = make_scaler("paper", cover.card).fit(X_train)
    scaled = scaler.transform(X_train)
    np.testing.assert_allclose(scaled[:, :10].mean(axis=0), 0, atol=1e-10)
    np.testing.assert_allclose(scaled[:, :10].std(axis=0), 1, atol=1e-10)
    np.testing.assert_array_equal(scaled[:, 10:], X_train[:, 10:])
    mean, std = X_train[:, :10].mean(axis=0), X_train[:, :10].std(axis=0)
    np.testing.assert_allclose(scaler.transform(X_val)[:, :10], (X_val[:, :10] - mean) / std,
                               rtol=1e-12)
    everything = make_scaler("standard", cover.card).fit(X_train).transform(X_train)
    assert not np.array_equal(everything[:, 10:], X_train[:, 10:])


def test_constant_columns_give_no_nan_or_inf(letter):
    X = np.array([[1.0, 5.0], [3.0, 5.0], [2.0, 5.0]])
    X_new = np.array([[4.0, 7.0]])
    for method in ("minmax", "standard"):
        scaler = Scaler(method=method, columns=(0, 1)).fit(X)
        train, new = scaler.transform(X), scaler.transform(X_new)
        assert np.isfinite(train).all() and np.isfinite(new).all()
        np.testing.assert_array_equal(train[:, 1], 0.0)
    minmax = Scaler(method="minmax", columns=(0, 1)).fit(X)
    np.testing.assert_array_equal(minmax.transform(X)[:, 0], [-1.0, 1.0, 0.0])
    np.testing.assert_array_equal(minmax.transform(X_new), [[2.0, 2.0]])


def test_none_and_paper_for_usps_leave_the_data_alone():
    card = data.get_card("usps")
    X = np.random.RandomState(0).rand(20, 256)
    for method in ("none", "paper"):
        np.testing.assert_array_equal(make_scaler(method, card).fit(X).transform(X), X)


@pytest.mark.parametrize("method", [m for m in METHODS])
def test_state_round_trip_through_npz(method):
    card = data.get_card("covertype")
    rng = np.random.RandomState(1)
    X_train, X_test = rng.normal(3, 2, (50, 54)), rng.normal(3, 2, (10, 54))
    scaler = make_scaler(method, card).fit(X_train)
    buffer = io.BytesIO()
    np.savez(buffer, **scaler.get_state())
    buffer.seek(0)
    with np.load(buffer, allow_pickle=False) as stored:
        restored = Scaler.from_state(method, dict(stored))
    np.testing.assert_array_equal(restored.transform(X_test), scaler.transform(X_test))


def test_bad_input_is_a_one_line_value_error():
    card = data.get_card("letter")
    with pytest.raises(ValueError, match="unknown scaling 'zscore'"):
        make_scaler("zscore", card)
    scaler = make_scaler("minmax", card).fit(np.arange(32.0).reshape(2, 16))
    with pytest.raises(ValueError, match="X has 3 features, the scaler was fitted on 16"):
        scaler.transform(np.zeros((1, 3)))
    with pytest.raises(ValueError, match="state is for 'minmax', not 'standard'"):
        Scaler.from_state("standard", scaler.get_state())
    with pytest.raises(ValueError, match="lacks offset"):
        Scaler.from_state("minmax", {k: v for k, v in scaler.get_state().items()
                                     if k != "offset"})
