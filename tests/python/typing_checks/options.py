"""Checked by mypy (test_typing.py), never run: the string options are ``Literal`` types.

Each misspelt option carries ``# type: ignore[arg-type]``; mypy runs with
``--warn-unused-ignores``, so a call it does not reject (an ignore left unused) fails the
test, as does an error in a valid call.
"""

import numpy as np
from kgroups_rs import (
    KernelKGroups,
    KernelKMeans,
    bandwidth,
    energy_distance,
    energy_gram,
    graph_kernel,
    kernel_kgroups,
    kernel_kgroups_from_data,
    nystrom_features,
)

X = np.zeros((4, 2))
labels = np.array([0, 0, 1, 1])

# valid calls
KernelKGroups(2, kernel="gaussian", sigma="median", init="random", kernel_storage="matrix-free")
KernelKGroups(2, init=labels)
KernelKGroups(2, init=[0, 0, 1, 1])
KernelKMeans(2, kernel="precomputed", algorithm="lloyd-online")
KernelKGroups("auto", kernel="knn")
KernelKGroups("auto", kernel=None)
energy_gram(X, semimetric="exponential", base="origin")
bandwidth(X, "median")
kernel_kgroups(energy_gram(X), 2, "k-means++", algorithm="lloyd")
kernel_kgroups_from_data(X, 2, labels, semimetric="gaussian", base="mean")
nystrom_features(X, 2, landmarks="uniform")
graph_kernel(np.eye(4), "normalized_cut")
energy_distance(X, X, semimetric="power")

# misspelt options: each must be a type error
KernelKGroups(2, kernel="rbf")  # type: ignore[arg-type]
KernelKMeans(2, kernel_storage="sparse")  # type: ignore[arg-type]
KernelKGroups(2, algorithm="kmeans")  # type: ignore[arg-type]
KernelKGroups(2, init="kmeans++")  # type: ignore[arg-type]
energy_gram(X, semimetric="euclidean")  # type: ignore[arg-type]
energy_gram(X, base="median")  # type: ignore[arg-type]
bandwidth(X, "mode")  # type: ignore[arg-type]
kernel_kgroups(energy_gram(X), 2, "kmeans")  # type: ignore[arg-type]
kernel_kgroups_from_data(X, 2, base="centered")  # type: ignore[arg-type]
nystrom_features(X, 2, landmarks="random")  # type: ignore[arg-type]
graph_kernel(np.eye(4), "ratio_cut")  # type: ignore[arg-type]
energy_distance(X, X, semimetric="energy")  # type: ignore[arg-type]
