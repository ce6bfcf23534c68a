"""kgroups_rs.dask: distributed kernel k-groups on dask arrays (a LocalCluster of two
worker processes, and dask's synchronous scheduler)."""

from __future__ import annotations

import dataclasses
import functools
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

import dask  # noqa: E402
import dask.array as da  # noqa: E402
import kgroups_rs  # noqa: E402
import kgroups_rs.dask as kgd  # noqa: E402
from kgroups_rs import _core  # noqa: E402
from kgroups_rs._run import run_clustering  # noqa: E402
from sklearn.metrics import adjusted_rand_score as ari  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as c:
        yield c


def mixture(n: int, seed: int = 0, k: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """k well separated Gaussian blobs in 2-D, and the truth."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, size=n)
    centres = np.array([[0.0, 0.0], [8.0, 0.0], [0.0, 8.0], [8.0, 8.0]])[:k]
    return centres[truth] + rng.normal(size=(n, 2)), truth


def test_one_chunk_is_the_single_machine_search(client):
    # Same features and initial labels: one chunk gives the sequential Hartigan search.
    rng = np.random.default_rng(3)
    n, m, k = 500, 6, 4
    phi = rng.normal(size=(n, m)) + 2.0 * (np.arange(n) % 3 == 0)[:, None]
    init = rng.integers(0, k, size=n)
    single = run_clustering(
        functools.partial(_core.cluster_features, phi), k, init, algorithm="hartigan",
        weights=None, n_init=1, max_iter=300, random_state=0, n_threads=1, progress=None,
    )
    res = kgd.kernel_kgroups_features(da.from_array(phi, chunks=(n, m)), k, da.from_array(init))
    np.testing.assert_array_equal(res.labels.compute(), single.labels)
    np.testing.assert_array_equal(res.objective_history, single.objective_history)
    assert (res.n_iter, res.n_moves, res.converged) == (single.n_iter, single.n_moves, True)
    assert res.objective == single.objective
    assert res.n_fallback_rounds == 0


def test_several_chunks_agree_with_single_machine(client):
    X, truth = mixture(3000)
    res = kgd.kernel_kgroups_nystrom(da.from_array(X, chunks=(500, 2)), 3, n_components=64, random_state=0)
    single = kgroups_rs.kernel_kgroups_nystrom(X, 3, n_components=64, random_state=0)
    labels = res.labels.compute()
    assert ari(labels, single.labels) >= 0.95
    assert ari(labels, truth) >= 0.95
    assert res.converged and res.approximate
    assert np.all(np.diff(res.objective_history) >= 0)
    assert np.isfinite(res.within) and res.within > 0


def test_conflicting_chunks_fall_back_and_never_lower_the_objective(client):
    # Alone, each chunk's sweep raises Q; together their moves lower it (found by search):
    # the merge must refuse the second chunk's moves in the first round.
    x = np.array([[9.0], [3.0], [7.0], [1.0], [3.0], [6.0]])
    init = np.array([1, 0, 1, 1, 1, 1])
    q0 = sum(x[init == c].sum() ** 2 / (init == c).sum() for c in range(2))
    combined = np.array([0, 1, 0, 0, 0, 1])  # both chunks' first sweeps applied together
    assert sum(x[combined == c].sum() ** 2 / (combined == c).sum() for c in range(2)) < q0
    res = kgd.kernel_kgroups_features(da.from_array(x, chunks=(3, 1)), 2, da.from_array(init, chunks=3))
    assert res.n_fallback_rounds >= 1 and res.n_rejected >= 1
    assert res.objective_history[0] == pytest.approx(q0)
    assert np.all(np.diff(res.objective_history) >= 0)
    labels = res.labels.compute()
    q = sum(x[labels == c].sum() ** 2 / (labels == c).sum() for c in range(2))
    assert res.objective == pytest.approx(q)


@pytest.mark.slow
def test_objective_never_decreases_over_many_chunks(client):
    rng = np.random.default_rng(5)
    n, m, k = 1200, 5, 6
    phi = rng.normal(size=(n, m)) + 3.0 * np.eye(m)[rng.integers(0, m, size=n)]
    init = rng.integers(0, k, size=n)
    for algorithm in ("hartigan", "lloyd"):
        res = kgd.kernel_kgroups_features(
            da.from_array(phi, chunks=(150, m)), k, da.from_array(init, chunks=300), algorithm=algorithm
        )
        assert res.n_iter >= 3, "a search that has something to do"
        history = res.objective_history
        assert np.all(np.diff(history) >= 0), algorithm
        assert history[-1] > history[0] and res.converged
        labels = res.labels.compute()
        sums = np.stack([phi[labels == c].sum(axis=0) for c in range(k)])
        sizes = np.bincount(labels, minlength=k)
        assert res.objective == pytest.approx(float(((sums**2).sum(axis=1) / sizes).sum()), rel=1e-9)


def test_labels_stay_lazy_and_nothing_n_sized_is_held(client):
    n = 4000
    X, _ = mixture(n, seed=1)
    Xd = da.from_array(X, chunks=(1000, 2))
    res = kgd.kernel_kgroups_nystrom(Xd, 3, n_components=32, random_state=1)
    assert isinstance(res.labels, da.Array)
    assert res.labels.dtype == np.int64 and res.labels.chunks == (Xd.chunks[0],)
    held = [getattr(res, f.name) for f in dataclasses.fields(res)]
    held += [getattr(res.feature_map, f.name) for f in dataclasses.fields(res.feature_map)]
    assert all(not isinstance(v, np.ndarray) or v.size < n for v in held)
    assert res.labels.compute().shape == (n,)


def test_synchronous_scheduler_gives_the_distributed_result(client):
    X, truth = mixture(2000, seed=2)
    Xd = da.from_array(X, chunks=(400, 2))
    distributed_run = kgd.kernel_kgroups_nystrom(Xd, 3, n_components=32, random_state=7, n_init=2)
    with dask.config.set(scheduler="synchronous"):
        local = kgd.kernel_kgroups_nystrom(Xd, 3, n_components=32, random_state=7, n_init=2)
        local_labels = local.labels.compute()
    np.testing.assert_array_equal(local_labels, distributed_run.labels.compute())
    np.testing.assert_array_equal(local.objective_history, distributed_run.objective_history)
    assert ari(local_labels, truth) >= 0.95


def test_more_starts_never_do_worse(client):
    X, _ = mixture(1500, seed=4, k=4)
    Xd = da.from_array(X, chunks=(300, 2))
    one = kgd.kernel_kgroups_nystrom(Xd, 4, n_components=24, random_state=3, n_init=1)
    three = kgd.kernel_kgroups_nystrom(Xd, 4, n_components=24, random_state=3, n_init=3)
    assert three.objective >= one.objective
    assert 0 <= three.best_start < 3


def test_progress_once_per_round(client):
    X, _ = mixture(1200, seed=6)
    events: list[tuple[int, int, int, float]] = []
    res = kgd.kernel_kgroups_nystrom(
        da.from_array(X, chunks=(300, 2)), 3, n_components=16, random_state=0,
        progress=lambda *event: events.append(event),
    )
    assert [e[1] for e in events] == list(range(1, res.n_iter + 1))
    assert [e[3] for e in events] == list(res.objective_history[1:])
    assert sum(e[2] for e in events) == res.n_moves


def test_weights_scale_free(client):
    X, _ = mixture(1000, seed=8)
    Xd = da.from_array(X, chunks=(250, 2))
    plain = kgd.kernel_kgroups_nystrom(Xd, 3, n_components=16, random_state=2)
    doubled = kgd.kernel_kgroups_nystrom(
        Xd, 3, n_components=16, random_state=2, weights=da.full(1000, 2.0, chunks=500)
    )
    np.testing.assert_array_equal(plain.labels.compute(), doubled.labels.compute())
    assert doubled.objective == pytest.approx(2 * plain.objective)


def test_estimator_fit_predict_on_dask_arrays(client):
    X, truth = mixture(3000, seed=9)
    Xd = da.from_array(X, chunks=(750, 2))
    est = kgd.KernelKGroups(n_clusters=3, n_components=32, random_state=0).fit(Xd)
    assert isinstance(est.labels_, da.Array) and est.converged_
    predicted = est.predict(Xd)
    assert isinstance(predicted, da.Array) and predicted.chunks == Xd.chunks[:1]
    labels = est.labels_.compute()
    np.testing.assert_array_equal(predicted.compute(), labels)
    new, new_truth = mixture(600, seed=10)
    assert ari(est.predict(da.from_array(new, chunks=200)).compute(), new_truth) >= 0.95
    assert est.get_params()["n_components"] == 32
    assert est.set_params(n_components=16).n_components == 16
    with pytest.raises(ValueError, match="invalid parameter"):
        est.set_params(bogus=1)



def test_estimator_parameters_are_the_single_machine_ones():
    """Every parameter the Dask estimator shares with kgroups_rs.KernelKGroups has its name
    and default; only n_threads differs (documented: one task per worker thread)."""
    import inspect

    def defaults(cls):
        parameters = inspect.signature(cls.__init__).parameters.items()
        return {name: p.default for name, p in parameters if name != "self"}

    single, distributed_ = defaults(kgroups_rs.KernelKGroups), defaults(kgd.KernelKGroups)
    shared = set(single) & set(distributed_)
    assert shared == {
        "n_clusters", "kernel", "alpha", "sigma", "algorithm", "init", "n_init", "max_iter",
        "random_state", "n_threads",
    }
    assert set(distributed_) - shared == {
        "n_components", "landmarks", "persist_features", "method", "max_moves_per_round",
    }
    assert {name: distributed_[name] for name in shared if name != "n_threads"} == {
        name: single[name] for name in shared if name != "n_threads"
    }
    assert (single["n_threads"], distributed_["n_threads"]) == (None, 1)
    assert "distributed reason" in kgd.KernelKGroups.__doc__
    assert set(kgd.KernelKGroups().get_params()) == set(distributed_)


def test_estimator_kernels(client):
    X, truth = mixture(900, seed=13)
    Xd = da.from_array(X, chunks=(300, 2))
    gaussian = kgd.KernelKGroups(3, kernel="gaussian", sigma="median", n_components=24, n_init=2,
                                 random_state=0).fit(Xd)
    direct = kgd.kernel_kgroups_nystrom(Xd, 3, semimetric="gaussian", sigma="median", n_components=24,
                                        n_init=2, random_state=0)
    np.testing.assert_array_equal(gaussian.labels_.compute(), direct.labels.compute())
    assert gaussian.result_.feature_map.semimetric == "gaussian"
    assert ari(gaussian.labels_.compute(), truth) >= 0.95
    with pytest.raises(ValueError, match=r"kernel must be one of .*'power'"):
        kgd.KernelKGroups(3, kernel="power", n_components=24).fit(Xd)
    with pytest.raises(ValueError, match=r"never forms the n x n kernel matrix"):
        kgd.KernelKGroups(3, kernel="precomputed", n_components=24).fit(Xd)

def _bad_inputs():
    X, _ = mixture(400, seed=11)
    nan = X.copy()
    nan[250, 1] = np.nan
    inf = X.copy()
    inf[399, 0] = -np.inf
    good = da.from_array(X, chunks=(100, 2))
    unknown = good[da.from_array(X[:, 0] > -100, chunks=100)]
    return [
        ("nan", dict(X=da.from_array(nan, chunks=(100, 2)), k=3), "NaN or infinity at row 250, column 1"),
        ("inf", dict(X=da.from_array(inf, chunks=(100, 2)), k=3), "row 399, column 0"),
        ("k>n", dict(X=good, k=401), "k = 401 is out of range"),
        ("m<k", dict(X=good, k=5, n_components=4), "n_components = 4 is smaller than k = 5"),
        ("columns", dict(X=da.from_array(X, chunks=(100, 1)), k=3), "chunks along its columns"),
        ("unknown", dict(X=unknown, k=3), "unknown chunk sizes"),
        ("label", dict(X=good, k=3, init=da.from_array(np.full(400, 3), chunks=100)), "not in 0..k"),
        ("empty", dict(X=good, k=3, init=da.from_array(np.arange(400) % 2, chunks=100)), "cluster 2"),
        ("algorithm", dict(X=good, k=3, algorithm="lloyd-online"), "algorithm must be one of"),
        ("weights", dict(X=good, k=3, weights=da.zeros(400, chunks=100)), "weights"),
        ("n_threads", dict(X=good, k=3, n_threads=0), "n_threads = 0 leaves no thread"),
    ]


@pytest.mark.parametrize("case", _bad_inputs(), ids=lambda c: c[0])
def test_bad_input_is_a_clear_value_error_and_the_cluster_stays_usable(client, case):
    _, kwargs, message = case
    kwargs = dict(kwargs)
    X, k = kwargs.pop("X"), kwargs.pop("k")
    kwargs.setdefault("n_components", 16)
    with pytest.raises(ValueError, match=message):
        kgd.kernel_kgroups_nystrom(X, k, random_state=0, **kwargs)
    assert client.submit(sum, [1, 2, 3]).result() == 6


def test_import_without_dask():
    code = (
        "import sys; sys.modules['dask'] = None; sys.modules['dask.array'] = None\n"
        "import kgroups_rs\n"
        "assert kgroups_rs.kernel_kgroups_nystrom\n"
        "try:\n"
        "    import kgroups_rs.dask\n"
        "except ImportError as e:\n"
        "    assert 'kgroups_rs[dask]' in str(e), e\n"
        "else:\n"
        "    raise SystemExit('imported without dask')\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_numpy_input_and_an_empty_chunk(client):
    X, truth = mixture(1000, seed=12)
    from_numpy = kgd.kernel_kgroups_nystrom(X, 3, n_components=16, random_state=0)
    assert isinstance(from_numpy.labels, da.Array)
    assert ari(from_numpy.labels.compute(), truth) >= 0.95
    with_empty = da.from_array(X, chunks=((0, 600, 400), (2,)))
    res = kgd.kernel_kgroups_nystrom(with_empty, 3, n_components=16, random_state=0)
    assert res.labels.chunks == (with_empty.chunks[0],)
    assert ari(res.labels.compute(), truth) >= 0.95


@pytest.mark.parametrize("rule", ["mean", "median"])
def test_bandwidth_rules_match_the_single_machine_rules(client, rule):
    """Below 20 000 points the client's sample is all of X, so each rule gives the
    single-machine bandwidth (up to the rounding of a distributed mean)."""
    x, _ = mixture(3000, seed=4)
    X = da.from_array(x, chunks=700)
    res = kgd.kernel_kgroups_nystrom(X, 3, semimetric="gaussian", sigma=rule, n_components=40, random_state=0)
    assert res.feature_map.sigma == pytest.approx(kgroups_rs.bandwidth(x, rule), rel=1e-12)
    with pytest.raises(ValueError, match="sigma must be one of"):
        kgd.kernel_kgroups_nystrom(X, 3, semimetric="gaussian", sigma="max", random_state=0)
