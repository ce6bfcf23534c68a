"""``init="spectral"`` on the distributed path, from the small r x r matrix ``Phi^T W Phi``.

With features ``Phi`` (n x r) the kernel is ``G = Phi Phi^T``, so the nonzero eigenpairs of
``M = W^(1/2) G W^(1/2)`` come from ``C = Phi^T W Phi = V Lambda V^T`` (one distributed pass,
a sum over chunks): ``u_j = W^(1/2) Phi v_j / sqrt(lambda_j)``. Row i of the top-k ``U`` is
``sqrt(w_i) phi_i V_k Lambda_k^(-1/2)``; normalised to unit length, as the core's spectral
embedding does, the factor ``sqrt(w_i)`` cancels, so each chunk embeds its rows from
``T = V_k Lambda_k^(-1/2)`` alone. The rounding is the core's (k-means++ then Lloyd in the
embedding) run on the client's sample of rows, and every point then goes to the nearest of
the sample's cluster means in the embedding (ties to the lower cluster).
"""

from __future__ import annotations

from typing import Any, Optional

import dask.array as da
import numpy as np

from .. import _core
from ._features import FloatArray, IntArray, aligned


def embed(phi: FloatArray, transform: FloatArray) -> FloatArray:
    """The rows of ``phi @ transform``, each normalised to unit length (a zero row stays zero)."""
    rows = np.asarray(phi, dtype=np.float64) @ transform
    norms = np.sqrt(np.einsum("ij,ij->i", rows, rows))
    return np.asarray(rows / np.where(norms > 0, norms, 1.0)[:, None], dtype=np.float64)


def nearest_in_embedding(phi: FloatArray, transform: FloatArray, centres: FloatArray) -> IntArray:
    """The nearest of ``centres`` (ties to the lowest index) of each row's embedding."""
    if phi.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    rows = embed(phi, transform)
    cost = np.einsum("ij,ij->i", centres, centres)[None, :] - 2.0 * (rows @ centres.T)
    return np.asarray(np.argmin(cost, axis=1), dtype=np.int64)


def spectral_transform(phi: Any, weight_vector: Any, k: int) -> tuple[FloatArray, float]:
    """``(T, bound)``: ``T = V_k Lambda_k^(-1/2)`` (r x k) from the top-k eigenpairs of
    ``C = Phi^T W Phi``, and ``bound = lambda_1 + ... + lambda_k`` (the relaxation's upper
    bound on the objective Q of every partition into k clusters)."""
    weighted = phi if weight_vector is None else phi * weight_vector[:, None]
    gram = aligned(da.dot(weighted.T, phi).compute(), np.float64)
    # The core's eigen-decomposition (symmetrised, values descending, each eigenvector's
    # largest |entry| positive so that T is reproducible; the rounding's distances do not
    # depend on the signs).
    values, vectors = _core.symmetric_eigen(gram)
    top, basis = values[:k], vectors[:, :k]
    if top.size < k or not bool(top[-1] > 1e-12 * max(float(top[0]), 0.0)):
        raise ValueError(
            f"init='spectral' needs k = {k} positive eigenvalues of the low-rank kernel, but it has "
            f"fewer (rank {int(np.sum(values > 1e-12 * max(float(values.max()), 0.0)))}); use "
            "init='k-means++' or more landmarks (n_components)"
        )
    return np.ascontiguousarray(basis / np.sqrt(top)), float(np.sum(top))


def round_sample(
    sample_phi: FloatArray, transform: FloatArray, k: int, seed: int, max_iter: int
) -> FloatArray:
    """The k cluster means, in the embedding, of the core's rounding of the sample's rows:
    k-means++ then Lloyd's method (``cluster_features`` with the linear kernel of the
    embedded rows), seeded with ``seed``."""
    rows = embed(sample_phi, transform)
    options = _core.FitOptions(
        algorithm="lloyd", init="k-means++", n_init=1, max_iter=max(max_iter, 100), seed=seed,
        n_threads=None,
    )  # fmt: skip
    labels = np.asarray(_core.cluster_features(aligned(rows, np.float64), k, options).labels)
    return np.stack([rows[labels == c].mean(axis=0) for c in range(k)])


def spectral_starts(
    phi: Any, weight_vector: Any, k: int, sample_phi: Optional[FloatArray], seeds: Any, max_iter: int
) -> tuple[list[Any], float]:
    """Each start's initial labels (persisted dask arrays) and the spectral bound."""
    if sample_phi is None:
        raise ValueError("init='spectral' needs a sample of the features")  # pragma: no cover
    transform, bound = spectral_transform(phi, weight_vector, k)
    starts = []
    for start_seed in seeds:
        centres = round_sample(sample_phi, transform, k, int(start_seed), max_iter)
        starts.append(
            phi.map_blocks(
                nearest_in_embedding, transform, centres, dtype=np.int64, drop_axis=1,
                chunks=(phi.chunks[0],),
            ).persist()
        )  # fmt: skip
    return starts, bound
