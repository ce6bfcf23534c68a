"""kgroups_rs.dask with method="exact": matrix-free Hartigan rounds on dask chunks reach a
verified local optimum of the exact kernel, as good as the single-machine matrix-free fit's
from the same start, with the same labels whatever the chunking and the scheduler."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

import dask  # noqa: E402
import dask.array as da  # noqa: E402
import kgroups_rs.dask as kgd  # noqa: E402
from kgroups_rs import energy_gram, kernel_kgroups_from_data  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as c:
        yield c


@pytest.fixture
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


def blobs(n: int, dim: int, k: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.normal(0.0, 3.0, size=(k, dim))
    return centres[rng.integers(0, k, n)] + rng.normal(size=(n, dim))


def single_machine(X, k, init, weights=None, **kernel):
    return kernel_kgroups_from_data(X - X.mean(axis=0), k, init, base="origin", weights=weights, **kernel)


def seeded_start(X: np.ndarray, k: int, seed: int) -> np.ndarray:
    """Every point to the nearest of k distinct data points chosen at random: a start like
    k-means++'s, near a good partition (from a random partition, any two orders of moves
    can reach local optima far apart)."""
    rng = np.random.default_rng(seed)
    centres = X[rng.choice(X.shape[0], size=k, replace=False)]
    return np.argmin(((X[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2), axis=1)


# n, D, k, weighted, semimetric: 16 problems.
CASES = [
    (n, dim, k, weighted, semimetric)
    for (n, dim, k) in [(300, 1, 2), (500, 2, 3), (800, 5, 5), (1200, 10, 8), (2000, 3, 4),
                        (400, 2, 8), (700, 1, 5), (1000, 10, 3)]
    for weighted, semimetric in [(False, "power"), (True, "gaussian")]
]


@pytest.mark.parametrize("n, dim, k, weighted, semimetric", CASES)
def test_agrees_with_the_single_machine_fit_from_the_same_start(synchronous, n, dim, k, weighted, semimetric):
    seed = n + dim + k
    X = blobs(n, dim, k, seed)
    rng = np.random.default_rng(seed)
    init = seeded_start(X, k, seed)
    weights = rng.uniform(0.5, 2.0, n) if weighted else None
    kernel = {"semimetric": semimetric, "sigma": 2.0 if semimetric == "gaussian" else None}
    result = kgd.kernel_kgroups_exact(
        da.from_array(X, chunks=(n // 3 + 1, dim)), k, init, weights=weights, **kernel
    )
    reference = single_machine(X, k, init, weights, **kernel)
    assert result.verified and result.converged
    assert result.verification_drift < 1e-10
    # Other moves than the single machine's sweep, to a local optimum as good (0.1 %).
    assert result.within <= reference.within * (1 + 1e-3)
    # Every round with moves raises the objective; the last proposes none.
    history = result.objective_history
    assert np.all(np.diff(history[:-1]) > 0) and history[-1] == history[-2]


@pytest.mark.parametrize("seed", range(4))
def test_random_starts_reach_a_verified_local_optimum(synchronous, seed):
    X = blobs(600, 2, 5, seed)
    init = np.random.default_rng(seed).integers(0, 5, 600)
    result = kgd.kernel_kgroups_exact(da.from_array(X, chunks=250), 5, init, max_moves_per_round=64)
    assert result.verified and result.converged
    assert np.all(np.diff(result.objective_history[:-1]) > 0)
    # A round considers at most 64 candidates.
    assert result.n_moves <= 64 * result.n_iter


def test_the_result_is_a_local_optimum_brute_force(synchronous):
    n, k = 40, 3
    X = blobs(n, 2, k, 5)
    init = np.arange(n) % k
    result = kgd.kernel_kgroups_exact(da.from_array(X, chunks=7), k, init)
    labels = result.labels.compute()
    G = energy_gram(X - X.mean(axis=0), base="origin")

    def within(lab):
        return float(np.trace(G)) - sum(
            G[np.ix_(lab == c, lab == c)].sum() / np.sum(lab == c) for c in range(k) if np.any(lab == c)
        )

    best = within(labels)
    assert best == pytest.approx(result.within, rel=1e-12)
    for i in range(n):
        if np.sum(labels == labels[i]) == 1:
            continue
        for c in range(k):
            if c != labels[i]:
                moved = labels.copy()
                moved[i] = c
                assert within(moved) >= best - 1e-9 * abs(best)


@pytest.mark.parametrize("chunks", [(1,) * 5 + (295,), (100, 100, 100), (299, 1), (17,) * 17 + (11,)])
def test_the_same_labels_whatever_the_chunking(synchronous, chunks):
    X = blobs(300, 3, 4, 2)
    reference = kgd.kernel_kgroups_exact(da.from_array(X, chunks=(300, 3)), 4, random_state=7, n_init=2)
    result = kgd.kernel_kgroups_exact(da.from_array(X, chunks=(chunks, 3)), 4, random_state=7, n_init=2)
    np.testing.assert_array_equal(result.labels.compute(), reference.labels.compute())
    assert result.objective == reference.objective
    assert result.labels.chunks[0] == chunks


@pytest.mark.parametrize("chunks", [(300,), (1,) * 3 + (297,), (100, 100, 100)])
def test_a_pass_of_many_blocks_does_not_depend_on_the_chunking(synchronous, monkeypatch, chunks):
    """With blocks of 64 rows a sums pass runs 5 blocks and their 10 pairs: the same labels
    and objective whatever the chunking, a verified optimum as good as one block's."""
    X = blobs(300, 3, 4, 2)
    one_block = kgd.kernel_kgroups_exact(da.from_array(X, chunks=(300, 3)), 4, random_state=7)
    monkeypatch.setattr("kgroups_rs.dask._exact.PASS_BLOCK_MIN", 64)
    monkeypatch.setattr("kgroups_rs.dask._exact.PASS_BLOCK_MAX", 64)
    result = kgd.kernel_kgroups_exact(da.from_array(X, chunks=(chunks, 3)), 4, random_state=7)
    reference = kgd.kernel_kgroups_exact(da.from_array(X, chunks=(300, 3)), 4, random_state=7)
    np.testing.assert_array_equal(result.labels.compute(), reference.labels.compute())
    assert result.objective == reference.objective
    assert result.verified and result.verification_drift < 1e-12
    assert result.within == pytest.approx(one_block.within, rel=1e-9)


def test_estimator_on_a_local_cluster(client):
    X = blobs(1500, 4, 3, 11)
    init = seeded_start(X, 3, 0)
    seen = []
    model = kgd.KernelKGroups(3, method="exact", init=da.from_array(init, chunks=400), n_init=1)
    model.fit(da.from_array(X, chunks=400))
    with dask.config.set(scheduler="synchronous"):
        alone = kgd.kernel_kgroups_exact(da.from_array(X, chunks=1500), 3, init)
    assert model.verified_ and model.converged_
    np.testing.assert_array_equal(model.labels_.compute(), alone.labels.compute())
    assert model.within_ <= single_machine(X, 3, init).within * (1 + 1e-3)
    # k-means++ start, progress, the same seed on other chunks and a second start.
    result = kgd.kernel_kgroups_exact(
        da.from_array(X, chunks=333), 3, random_state=3, n_init=2,
        progress=lambda *event: seen.append(event),
    )
    again = kgd.KernelKGroups(3, method="exact", random_state=3, n_init=2).fit(da.from_array(X, chunks=700))
    np.testing.assert_array_equal(result.labels.compute(), again.labels_.compute())
    assert seen and all(len(e) == 4 for e in seen)
    assert result.verified
    with pytest.raises(NotImplementedError, match="method='exact'"):
        again.predict(da.from_array(X, chunks=700))


def test_spectral_start_on_a_sample(synchronous):
    X = blobs(3000, 2, 4, 8)
    spectral = kgd.kernel_kgroups_exact(da.from_array(X, chunks=1000), 4, "spectral", random_state=1)
    plusplus = kgd.kernel_kgroups_exact(da.from_array(X, chunks=1000), 4, random_state=1)
    assert spectral.verified and plusplus.verified
    assert spectral.within <= plusplus.within * 1.05
    assert len(spectral.pass_seconds) == spectral.n_passes == 2


def test_ctrl_c_between_rounds_raises_at_once_and_the_client_serves_the_next_fit(client):
    """KeyboardInterrupt (Ctrl-C on the client) during the rounds propagates at once; the fit's
    futures are released and the same client runs the next fit."""
    X = blobs(2000, 2, 4, 3)
    init = np.random.default_rng(0).integers(0, 4, 2000)
    rounds = []

    def interrupt(start, round_, moves, objective):
        rounds.append(round_)
        if round_ == 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        kgd.kernel_kgroups_exact(
            da.from_array(X, chunks=500), 4, init, max_moves_per_round=8, progress=interrupt
        )
    assert rounds == [1]
    assert kgd.kernel_kgroups_exact(da.from_array(X, chunks=500), 4, init).verified


def test_nystrom_stays_the_default():
    assert kgd.KernelKGroups().method == "nystrom"
    assert kgd.KernelKGroups(3, method="exact").get_params()["method"] == "exact"


def test_bad_input_is_a_clear_error(synchronous):
    X = blobs(100, 2, 2, 1)
    Xd = da.from_array(X, chunks=30)
    bad = X.copy()
    bad[75, 1] = np.nan
    with pytest.raises(ValueError, match="row 75, column 1"):
        kgd.kernel_kgroups_exact(da.from_array(bad, chunks=30), 2)
    with pytest.raises(ValueError, match="out of range"):
        kgd.kernel_kgroups_exact(Xd, 101)
    with pytest.raises(ValueError, match="cluster 1 of k = 2 is empty"):
        kgd.kernel_kgroups_exact(Xd, 2, np.zeros(100, dtype=np.int64))
    with pytest.raises(ValueError, match="labels must lie in 0..1"):
        kgd.kernel_kgroups_exact(Xd, 2, np.full(100, 2))
    with pytest.raises(ValueError, match="n_init must be 1"):
        kgd.kernel_kgroups_exact(Xd, 2, np.arange(100) % 2, n_init=2)
    with pytest.raises(ValueError, match="weight"):
        kgd.kernel_kgroups_exact(Xd, 2, weights=np.zeros(100))
    with pytest.raises(ValueError, match="shape"):
        kgd.kernel_kgroups_exact(Xd, 2, weights=np.ones(99))
    with pytest.raises(ValueError, match="init must be"):
        kgd.kernel_kgroups_exact(Xd, 2, "random")
    with pytest.raises(ValueError, match="columns"):
        kgd.kernel_kgroups_exact(da.from_array(X, chunks=(30, 1)), 2)
    with pytest.raises(ValueError, match="method must be"):
        kgd.KernelKGroups(2, method="exactly").fit(Xd)
    with pytest.raises(ValueError, match="method='exact' needs"):
        kgd.KernelKGroups("auto", method="exact").fit(Xd)
    with pytest.raises(ValueError, match="algorithm"):
        kgd.KernelKGroups(2, method="exact", algorithm="lloyd").fit(Xd)


def test_k_one_and_identical_points(synchronous):
    X = np.ones((20, 2))
    result = kgd.kernel_kgroups_exact(da.from_array(X, chunks=6), 1)
    assert result.verified and np.all(result.labels.compute() == 0)
    result = kgd.kernel_kgroups_exact(da.from_array(blobs(50, 2, 2, 0), chunks=6), 1)
    assert result.n_moves == 0 and result.verified


def test_worker_processes_receive_unaligned_arrays_and_agree():
    """Arrays unpickled by worker processes may be unaligned views: every call to the core
    copes (the same labels as in one process)."""
    X = blobs(600, 3, 3, 4)
    init = np.random.default_rng(1).integers(0, 3, 600)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, distributed.Client(cluster):
        result = kgd.kernel_kgroups_exact(da.from_array(X, chunks=150), 3, init)
        labels = result.labels.compute()
    with dask.config.set(scheduler="synchronous"):
        alone = kgd.kernel_kgroups_exact(da.from_array(X, chunks=600), 3, init)
    np.testing.assert_array_equal(labels, alone.labels.compute())
    assert result.verified
