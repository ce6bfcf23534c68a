"""Kernel k-groups on a Dask cluster: Nyström features and Hartigan rounds on dask arrays.

``kernel_kgroups_nystrom(X, k)`` here is the distributed counterpart of
:func:`kgroups_rs.kernel_kgroups_nystrom` for a ``dask.array`` X chunked along its rows; the
:class:`KernelKGroups` estimator wraps it. It runs on whatever scheduler dask uses (a
``distributed.Client`` when one is active, else dask's local schedulers). Install with
``pip install "kgroups_rs[dask]"`` (from a source checkout: ``pip install ".[dask]"``).

How it works, and why
---------------------
``method="exact"`` (:func:`kernel_kgroups_exact`) is exact matrix-free kernel k-groups
instead: see :mod:`kgroups_rs.dask._exact`. The rest of this page is the Nyström path.

The kernel is the Nyström approximation ``G ~ Phi Phi^T`` with ``Phi = K(X, L) W^(-1/2)``,
``W = K(L, L)`` for m landmarks ``L``, exactly as on one machine. Then:

1. **One pass over X** computes the column means (the data are centred, as on one machine),
   finds the first NaN or infinity in any chunk (reported as a ValueError naming its row and
   column) and, for a Gaussian or exponential semimetric without ``sigma``, a second pass the
   bandwidth ``sigma^2 = 2 mean_i ||x_i - xbar||^2`` (the mean over all pairs, as on one
   machine).
2. **Landmarks on a uniform sample brought to the client** (at most 20 000 rows, or all
   when n is smaller), chosen on it by the single-machine rule (k-means++ D^2 sampling in the
   kernel's feature space, or uniform). Why not k-means||: the landmarks only have to span
   the kernel's dominant eigenspace, which a uniform sample of thousands of points already
   covers for every cluster holding more than a few thousandths of the data; k-means|| would
   cost several more passes over X for no gain in the clustering. ``W^(-1/2)`` (m x m,
   rank-truncated like the single-machine features) is formed on the client.
3. **Features per chunk**: ``Phi_b = K(X_b, L) W^(-1/2)`` in ``map_blocks`` (the Rust energy
   kernel, then a matrix product), persisted on the workers when they fit in a quarter of
   the cluster's memory, else recomputed from X in every round (trading one O(n m D) pass
   per round for 8 n r bytes of worker memory).
4. **Start**: Hartigan's method from feature-space k-means++ on the sample's features, run on
   the client; each point is then assigned to the nearest of the sample's k cluster means in
   one distributed pass. Or ``init="spectral"``: the spectral embedding from the r x r
   matrix ``Phi^T W Phi``, rounded on the sample (see the user guide). Or given initial labels.
5. **Rounds**: the client broadcasts the k x m cluster feature sums ``S_l = sum_{y in C_l}
   w_y phi_y``, the cluster weights and counts. Every chunk runs one sequential Hartigan
   sweep over its own points in Rust against its own copy of that state (the single-machine
   sweep: the same gain and rounding tolerance), and returns only its copy of the sums and
   its partial cluster weights and counts; its new labels stay on its worker. The client
   forms the combined state ``S = S_old + sum_b (S_b - S_old)`` and its objective
   ``Q = sum_l ||S_l||^2 / s_l``. If Q did not fall, every chunk's moves are kept. If it
   fell (moves of different chunks that were each good alone can conflict), the chunks are
   merged one at a time in chunk order, each kept only if Q does not fall; a chunk whose
   moves are refused keeps its old labels. The first chunk with moves is always kept (its
   moves are a sequential Hartigan sweep), so every round makes progress, the objective
   history never decreases, and the result is deterministic for a ``random_state`` and a
   chunking. Rounds stop when no chunk proposes a move. ``algorithm="lloyd"`` replaces the
   sweep by a batch nearest-mean assignment (kernel k-means) with the same verified merge.

With a single chunk a round is exactly one single-machine Hartigan sweep on the same
features: the same labels and the same objective history.

Cost per round (n points, k clusters, r <= m feature columns, c chunks): work O(n k r) on
the workers; data moved O(c k r) (the state out, each chunk's sums back); client work
O(c k r) (O(c^2 k r) in a fallback round). The client holds O(k r + m^2 + m D) numbers and
the sample, never X, the features or the labels.
"""

try:
    import dask.array as _dask_array  # noqa: F401
except ImportError as error:  # pragma: no cover - exercised without dask installed
    raise ImportError(
        "kgroups_rs.dask needs dask[array] and distributed: "
        'pip install "kgroups_rs[dask]" (from a source checkout: pip install ".[dask]")'
    ) from error

from ._estimator import KernelKGroups
from ._exact import DaskExactResult, kernel_kgroups_exact
from ._functions import kernel_kgroups_features, kernel_kgroups_nystrom
from ._result import DaskClusteringResult

__all__ = [
    "DaskClusteringResult",
    "DaskExactResult",
    "KernelKGroups",
    "kernel_kgroups_exact",
    "kernel_kgroups_features",
    "kernel_kgroups_nystrom",
]
