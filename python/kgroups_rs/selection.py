"""Choosing the number of groups k and the kernel: :func:`select_k`."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, Literal, Optional, Union

import numpy as np
import numpy.typing as npt

from . import _core
from ._progress import ProgressCallback
from ._validation import (
    RandomState,
    as_float_array,
    check_int,
    check_n_threads,
    seed_from_random_state,
)

__all__ = ["SelectionResult", "select_k"]

SelectKernel = Literal["auto", "energy", "knn", "precomputed"]
_KERNELS = ("auto", "energy", "knn", "precomputed")

#: The core's defaults (one owner: the Rust core's ``SelectOptions``): ``k_max`` of the
#: default range, ``max_statistics_points`` (the statistics' sample beyond it),
#: ``n_neighbors`` (the kNN graph and its vote), ``n_refs``, ``n_init``, ``n_pairs``.
DEFAULTS: dict[str, int] = dict(_core.select_defaults())


def default_k_range(n: int) -> range:
    """The k range a selection considers when none is given: 1 ... ``DEFAULTS["k_max"]``,
    capped at the ``n`` points."""
    return range(1, min(DEFAULTS["k_max"], n) + 1)


@dataclass(frozen=True)
class SelectionResult:
    """The outcome of :func:`select_k`.

    Attributes
    ----------
    k : int
        The chosen number of groups (1: no structure found).
    labels : ndarray of int64, shape (n,)
        Each point's group at that k, ``0 .. k-1``.
    kernel : {"energy", "knn"} or None
        The kernel of the partition: the energy kernel, the kNN graph (normalised cut), or
        None for k = 1 and for a precomputed kernel.
    rule : str
        What gave k: ``"energy_gap"``, ``"knn_relative_eigengap"``, ``"no_structure"``,
        ``"stability"``, or ``"given_k"`` (k was given: only the kernel was chosen).
    table : dict of str to ndarray
        One entry per k of the range 1 .. max(k) (NaN where not computed): ``k``;
        ``within`` (W_k) and ``log_within``; ``expected_log_within_pc`` (E*[log W_k] over
        the references, uniform on the box of the principal components); ``gap_pc`` and
        ``se_pc`` (Gap(k) and s_k); ``stability``; ``eigenvalue`` and ``relative_eigengap``.
    energy_structure : float
        The energy kernel's structure score: the largest ``Gap(k) - Gap(1) - max(0.1,
        3 s_k)`` over k >= 2 (positive: it sees more than one group).
    self_tuning_structure : float or None
        ``Gap(2) - s_2 - Gap(1)`` of the self-tuning probe, when it was run.
    cut_ratio : float or None
        The kNN graph partition's normalised cut over the energy partition's, at the k where
        the two kernels were compared (None when they were not).
    at_range_end : bool
        k is the largest of the range because the energy kernel's gap still rose there: the
        data may hold that many groups or more (``select_k`` warns).
    n_statistics : int
        The number of points the statistics were computed on.
    """

    k: int
    labels: npt.NDArray[np.int64]
    kernel: Optional[str]
    rule: str
    table: dict[str, npt.NDArray[Any]]
    energy_structure: float
    self_tuning_structure: Optional[float]
    cut_ratio: Optional[float]
    at_range_end: bool
    n_statistics: int

    def to_pandas(self) -> Any:
        """The table as a pandas DataFrame indexed by k (needs pandas)."""
        import pandas as pd  # type: ignore[import-untyped]

        return pd.DataFrame(self.table).set_index("k")


def _k_range(k: Any, n: int) -> tuple[int, int]:
    """``(k_min, k_max)`` from a range or a sequence of consecutive integers; ``(k, k)`` from
    one integer (k given)."""
    if isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)):
        return _k_bounds(int(k), int(k), n)
    consecutive = f"k must hold at least two consecutive integers (such as range(1, 11)), got {k!r}"
    if isinstance(k, range):
        # Its bounds, read without building the range (which may reach far beyond n).
        if k.step != 1 or k.stop - k.start < 2:
            raise ValueError(consecutive)
        return _k_bounds(k.start, k.stop - 1, n)
    try:
        values = [check_int(v, "k", 1) for v in k]
    except TypeError as error:
        raise TypeError(f"k must be a range or a sequence of consecutive integers: {error}") from None
    if len(values) < 2 or any(b != a + 1 for a, b in zip(values, values[1:])):
        raise ValueError(consecutive)
    return _k_bounds(int(values[0]), int(values[-1]), n)


def _k_bounds(k_min: int, k_max: int, n: int) -> tuple[int, int]:
    """``(k_min, k_max)`` of a range of consecutive k, checked against ``n`` points."""
    if k_min < 1:
        raise ValueError(f"k must start at 1 or more, got {k_min}")
    if k_max > n:
        raise ValueError(f"k reaches {k_max}, beyond the number of points n = {n}")
    return k_min, k_max


def select_k(
    X: Any,
    k: Any = None,
    *,
    kernel: SelectKernel = "auto",
    n_refs: int = DEFAULTS["n_refs"],
    n_init: int = DEFAULTS["n_init"],
    n_pairs: int = DEFAULTS["n_pairs"],
    warm_start: bool = True,
    random_state: RandomState = None,
    n_threads: Optional[int] = None,
    progress: Union[ProgressCallback, None] = None,
) -> SelectionResult:
    """Choose the number of groups and the kernel, and partition the points.

    The statistics, for k in the range ``k``:

    - **The gap statistic of the energy kernel.** ``W_k`` is the energy within-cluster
      dispersion of kernel k-groups' partition into k groups (rho = Euclidean distance,
      nothing fitted). ``n_refs`` reference data sets are drawn uniformly on the box of the
      data's principal components; ``Gap(k)`` is the mean of
      ``log W_k`` over the references minus the data's ``log W_k``, and its standard error
      ``s_k`` is the references' standard deviation times the square root of
      ``1 + 1 / n_refs``.
    - **The structure test** of the energy kernel: it sees more than one group when some
      k >= 2 gains ``Gap(k) - Gap(1)`` of more than 0.1 and more than ``3 s_k`` (a
      dispersion a tenth lower than the references reach, relative to one group). The
      self-tuning affinity (``exp(-|x_a - x_b|^2 / (sigma_a sigma_b))``, ``sigma_i`` the
      distance to the 7th neighbour) is a second probe: it sees structure when
      ``Gap(2) - s_2 - Gap(1)`` of its normalised cut plus one exceeds 0.005.
    - **The cut ratio** at a k: the normalised cut, on the kNN graph, of the graph's own
      partition into k groups over that of the energy kernel's partition.
    - **The relative eigen-gap** of the kNN graph (10 neighbours, connectivity, union):
      with ``lambda_k = 1 - mu_k`` from the top eigenvalues ``mu`` of ``D^-1/2 A D^-1/2``,
      the k >= 2 with the largest ``(lambda_{k+1} - lambda_k) / lambda_{k+1}``.
    - **Stability**: the mean adjusted Rand index, over ``n_pairs`` pairs of 80 %
      subsamples, of the two partitions on their common points (reported only).

    The rule (``kernel="auto"``): when the energy kernel sees structure, k by Tibshirani's
    1-SE rule from k = 2 on (the smallest k >= 2 with ``Gap(k) >= Gap(k+1) - s_{k+1}``),
    passing over a k with ``Gap(k) > Gap(1)`` that some larger j beats by the structure
    margin (``Gap(j) - Gap(k) > max(0.1, 3 s_j)``) and by more than twice k's own gain
    ``Gap(k) - Gap(1)``; at that k, the kNN graph's partition when the cut ratio is below
    0.8, else the energy kernel's. When the energy kernel sees no structure, or its gap
    still rises at the end of the range: the kNN graph with k at its largest relative
    eigen-gap, if the self-tuning probe sees structure and the cut ratio there is below 0.1
    (a cut the energy kernel cannot make); else the energy gap's k at the end of the range
    (with a warning that the data may hold more groups), or one group. The thresholds were
    chosen on the development sets of ``benches/bench_select_k.py`` and are judged on its
    held-out sets and on ``benches/bench_select_null.py``. ``kernel="energy"`` uses the energy gap only;
    ``kernel="knn"`` the self-tuning test and the kNN eigen-gap only. With
    ``kernel="precomputed"``, ``X`` is a kernel matrix G, no reference can be drawn, and k
    is the most stable k >= 2.

    On more than 2 000 points the statistics are computed on a seeded subsample of 2 000;
    the partition at the chosen k always covers every point. Every reference, subsample and
    start gets its seed from ``random_state`` up front, so the result does not depend on
    ``n_threads``.

    Parameters
    ----------
    X : array_like of shape (n, D), or (n, n) for ``kernel="precomputed"``
        The data (finite), or a symmetric kernel matrix.
    k : range, sequence of consecutive ints, int, or None, default None
        The k considered (at least two values, within 1 .. n; None: 1 ... 10, capped at
        n). Starting at 1 allows the
        answer "one group". One int: k is given and only the kernel is chosen
        (``kernel="auto"``): the energy kernel's and the kNN graph's partitions into k groups,
        the graph's when the cut ratio is below 0.8 (no gap statistic; ``rule`` is
        ``"given_k"``); with ``kernel="energy"`` or ``"knn"``, that kernel's partition.
    kernel : {"auto", "energy", "knn", "precomputed"}, default "auto"
        Which kernels may be chosen.
    n_refs : int, default 10
        Reference data sets.
    n_init : int, default 10
        k-means++ starts per k on the data (each reference set gets ``min(n_init, 3)``: its
        ``log W_k`` is averaged over the references, so fewer starts move the gap little).
    n_pairs : int, default 5
        Subsample pairs of the stability column (0: not computed; at least 1 for
        ``"precomputed"``).
    warm_start : bool, default True
        Give each k one more start, made from the best partition into k - 1 by splitting
        its most dispersed cluster in two (a 2-means inside it), refined by the same local
        search; the best start wins. The data, every reference set and every subsample go
        through the same construction.
    random_state : int, numpy Generator or None
        Seed of every reference, subsample and start.
    n_threads : int, optional
        Threads (default: all cores).
    progress : callable, optional
        Called as ``progress(0, parts_done, parts_planned, nan)`` after each part (a
        reference set, a subsample, a kernel's fits).

    Returns
    -------
    SelectionResult

    Raises
    ------
    ValueError
        Fewer than 2 points, a k range beyond n or with fewer than two values, NaN or
        infinity in ``X``, an unknown ``kernel``.

    Examples
    --------
    >>> import numpy as np, kgroups_rs
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(c, 0.3, (40, 2)) for c in (0, 5, 10)])
    >>> result = kgroups_rs.select_k(X, range(1, 6), random_state=0)
    >>> result.k, result.kernel
    (3, 'energy')
    """
    if kernel not in _KERNELS:
        raise ValueError(f"kernel must be one of {_KERNELS}, got {kernel!r}")
    data = np.ascontiguousarray(as_float_array(X, "X"), dtype=np.float64)
    if data.ndim == 1:
        data = data.reshape(-1, 1)
    if data.ndim != 2:
        raise ValueError(f"X must be a 2-D (n, D) array, got shape {data.shape}")
    n = data.shape[0]
    if n < 2:
        raise ValueError(f"choosing k needs at least 2 points, got {n}")
    if data.size and not np.all(np.isfinite(data)):
        raise ValueError("X contains NaN or infinity; all values must be finite")
    k_min, k_max = _k_range(default_k_range(n) if k is None else k, n)
    if k_min == k_max and kernel == "precomputed":
        raise ValueError("one k given needs points, not kernel='precomputed'")
    refs = check_int(n_refs, "n_refs", 1)
    starts = check_int(n_init, "n_init", 1)
    pairs = check_int(n_pairs, "n_pairs", 0)
    if not isinstance(warm_start, (bool, np.bool_)):
        raise TypeError(f"warm_start must be True or False, got {warm_start!r}")
    threads = check_n_threads(n_threads)
    if progress is not None and not callable(progress):
        raise TypeError("progress must be a callable progress(start, sweep, moves, objective) or None")
    seed = seed_from_random_state(random_state)
    if kernel == "precomputed":
        if data.shape[0] != data.shape[1]:
            raise ValueError(f"kernel='precomputed' needs a square kernel matrix G, got shape {data.shape}")
        raw = _core.select_k_precomputed(
            data, k_min, k_max, starts, max(pairs, 1), seed, threads, progress, warm_start=bool(warm_start)
        )
    else:
        raw = _core.select_k(
            data, k_min, k_max, kernel, refs, starts, pairs, DEFAULTS["max_statistics_points"], seed,
            threads, progress, warm_start=bool(warm_start),
        )
    result = SelectionResult(
        k=int(raw.k),
        labels=np.asarray(raw.labels, dtype=np.int64),
        kernel=raw.kernel,
        rule=str(raw.rule),
        table={name: np.asarray(column) for name, column in raw.table.items()},
        energy_structure=float(raw.energy_structure),
        self_tuning_structure=raw.self_tuning_structure,
        cut_ratio=raw.cut_ratio,
        at_range_end=bool(raw.at_range_end),
        n_statistics=int(raw.n_statistics),
    )
    if result.at_range_end:
        warnings.warn(
            f"select_k chose k = {result.k}, the end of the range: the energy kernel's gap still rose "
            f"there, so the data may hold {result.k} groups or more; widen the range (k=range(1, ...)) "
            "to look further",
            UserWarning,
            stacklevel=2,
        )
    return result
