"""Models the predict tests train through the CLI, and what their own estimators predict."""

import numpy as np
from sklearn.datasets import load_iris

from multisvm_cli.experiment.models.metadata import load_trained_model

IRIS_NAMES = ["sepal_length", "sepal_width", "petal_length", "petal_width"]
SPECIES = np.array(["setosa", "versicolor", "virginica"])


def expected_labels(model, X):
    """The model's own estimator on ``X`` scaled by its own saved scaler."""
    loaded = load_trained_model(model)
    return loaded.estimator.predict(loaded.scaler.transform(X))


def train_local_iris(tmp_path, run_multisvm, write_config):
    """A DAGSVM model (``tmp_path/model``) trained through the CLI on ``tmp_path/iris.csv``:
    iris with a header, its label column ``species`` first."""
    X, y = load_iris(return_X_y=True)
    np.savetxt(tmp_path / "iris.csv", np.column_stack([SPECIES[y], X.astype(str)]),
               delimiter=",", fmt="%s", header=",".join(["species", *IRIS_NAMES]), comments="")
    config = write_config(dataset=[{"name": "irises", "path": "iris.csv", "label": "species"}],
                          schemes=["dag"])
    model = tmp_path / "model"
    code, _, err = run_multisvm("train", config, "--scheme", "dag", "-o", model, "--out",
                                tmp_path / "results", "-q")
    assert code == 0, err
    return model
