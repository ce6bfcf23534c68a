"""Deliberately independent numpy implementations, kept apart from the library on purpose.

The experiments compare the library with these (the corrected Algorithm 1 must give the same
labels as ``kernel_kmeans(algorithm="lloyd-online")``), or use them for what the library does
not offer (the paper's Algorithm 1 exactly as printed, tslearn's assignment rule, k-means++ on
the raw data, shared numpy k-means++ starts). Do not replace them with library calls.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from .common import FloatArray, IntArray, as_2d


def raw_kmeanspp_labels(X: npt.ArrayLike, k: int, seed: int) -> IntArray:
    """k-means++ seeded on the raw data (squared Euclidean), each point to its nearest centre."""
    from sklearn.cluster import kmeans_plusplus

    data = as_2d(X)
    centres, idx = kmeans_plusplus(data, n_clusters=k, random_state=seed)
    d2 = ((data[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)
    labels = np.asarray(d2.argmin(axis=1), dtype=np.int64)
    labels[np.asarray(idx)] = np.arange(k)
    return labels


def feature_kmeanspp_labels(G: FloatArray, k: int, rng: np.random.Generator) -> IntArray:
    """Greedy k-means++ in feature space (d² = G_ii + G_cc − 2 G_ic), numpy version."""
    n = G.shape[0]
    diag = np.diag(G)

    def d2(c: int) -> FloatArray:
        return np.asarray(np.maximum(diag + diag[c] - 2.0 * G[c], 0.0), dtype=np.float64)

    centres = [int(rng.integers(n))]
    closest = d2(centres[0])
    trials = 2 + int(math.log(k))
    for _ in range(1, k):
        total = closest.sum()
        p = closest / total if total > 0 else np.full(n, 1.0 / n)
        candidates = rng.choice(n, size=trials, p=p)
        best = min((int(c) for c in candidates), key=lambda c: float(np.minimum(closest, d2(c)).sum()))
        centres.append(best)
        closest = np.minimum(closest, d2(best))
    dist = np.stack([d2(c) for c in centres], axis=1)
    labels = np.asarray(dist.argmin(axis=1), dtype=np.int64)
    labels[np.asarray(centres)] = np.arange(k)
    return labels


def online_lloyd_numpy(
    G: FloatArray, labels0: IntArray, k: int, *, literal: bool, max_sweeps: int = 100
) -> IntArray:
    """The paper's Algorithm 1 (online kernel k-means), independent numpy implementation.

    ``literal=True`` uses lines 12-13 exactly as printed, ``q_j -= 2 Q_j(x_i)`` and
    ``q_j* += 2 Q_j*(x_i)``, without the ``+ G_ii`` term (SPEC, "Differences from the papers",
    item 1), so the tracked cluster costs drift from the true ones. ``literal=False`` applies
    the corrected updates and must agree with ``kernel_kmeans(algorithm="lloyd-online")``.
    """
    labels: IntArray = np.array(labels0, dtype=np.int64)
    n = G.shape[0]
    onehot = np.zeros((n, k))
    onehot[np.arange(n), labels] = 1.0
    M = G @ onehot  # M[i, l] = sum_{y in C_l} G_iy
    s = onehot.sum(axis=0)
    q = np.einsum("il,il->l", M, onehot)
    diag = np.diag(G)
    for _ in range(max_sweeps):
        moved = 0
        for i in range(n):
            j = int(labels[i])
            if s[j] <= 1.0:
                continue  # a point alone in its cluster never moves (s_j - 1 = 0 otherwise)
            cost = q / s**2 - 2.0 * M[i] / s
            best = int(np.argmin(cost))
            if cost[best] < cost[j]:
                extra = 0.0 if literal else diag[i]
                q[j] = q[j] - 2.0 * M[i, j] + extra
                q[best] = q[best] + 2.0 * M[i, best] + extra
                s[j] -= 1.0
                s[best] += 1.0
                M[:, j] -= G[:, i]
                M[:, best] += G[:, i]
                labels[i] = best
                moved += 1
        if moved == 0:
            break
    return labels


def tslearn_rule(G: FloatArray, labels0: IntArray, k: int, max_iter: int = 50) -> IntArray:
    """The assignment rule of tslearn's KernelKMeans: argmin_j 2 − 2·mean_{y∈C_j} K(x, y).

    tslearn drops ``K(x, x)`` and the centre's squared norm ``‖μ_j‖² = Q_j / s_j²`` because it
    assumes a normalised kernel; on the energy kernel that is not kernel k-means.
    """
    labels: IntArray = np.array(labels0, dtype=np.int64)
    for _ in range(max_iter):
        counts = np.bincount(labels, minlength=k).astype(np.float64)
        if (counts == 0).any():
            break  # tslearn raises EmptyClusterError and restarts
        onehot = np.zeros((labels.size, k))
        onehot[np.arange(labels.size), labels] = 1.0
        dist = 2.0 - 2.0 * (G @ onehot) / counts
        new = np.asarray(dist.argmin(axis=1), dtype=np.int64)
        if np.array_equal(new, labels):
            break
        labels = new
    return labels
