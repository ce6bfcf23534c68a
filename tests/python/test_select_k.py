"""kgroups_rs.select_k: choosing k and the kernel (issue 34)."""

from __future__ import annotations

import sys
import time

import kgroups_rs
import numpy as np
import pytest
from _interrupt import interrupted_while_counting
from kgroups_rs import _core


def _blobs(k: int, n: int = 40, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.vstack([rng.normal((6 * i, 3 * (i % 2)), 0.5, (n, 2)) for i in range(k)])


def test_three_blobs_give_three_groups_with_the_energy_kernel() -> None:
    X = _blobs(3)
    result = kgroups_rs.select_k(X, random_state=0)
    assert (result.k, result.kernel, result.rule) == (3, "energy", "energy_gap")
    truth = np.repeat(np.arange(3), 40)
    assert kgroups_rs.clustering_accuracy(truth, result.labels) == 1.0
    assert result.energy_structure > 0
    table = result.table
    assert list(table["k"]) == list(range(1, 11))
    np.testing.assert_allclose(table["log_within"], np.log(table["within"]))
    np.testing.assert_allclose(table["gap_pc"], table["expected_log_within_pc"] - table["log_within"])
    # Tibshirani's rule: the first k with Gap(k) >= Gap(k+1) - s_{k+1}.
    gap, se = table["gap_pc"], table["se_pc"]
    first = next(k for k in range(1, 10) if gap[k - 1] >= gap[k] - se[k])
    assert first == 3


def test_uniform_data_give_one_group() -> None:
    X = np.random.default_rng(1).uniform(size=(300, 2))
    result = kgroups_rs.select_k(X, random_state=0)
    assert (result.k, result.kernel, result.rule) == (1, None, "no_structure")
    assert result.self_tuning_structure is not None and result.self_tuning_structure <= 0
    assert np.all(result.labels == 0)


def test_circles_go_to_the_knn_graph_with_two_groups() -> None:
    rng = np.random.default_rng(2)
    t = rng.uniform(0, 2 * np.pi, 400)
    radius = np.where(np.arange(400) < 200, 1.0, 0.5) + rng.normal(0, 0.03, 400)
    X = np.c_[radius * np.cos(t), radius * np.sin(t)]
    result = kgroups_rs.select_k(X, random_state=0)
    assert (result.k, result.kernel, result.rule) == (2, "knn", "knn_relative_eigengap")
    truth = (np.arange(400) < 200).astype(int)
    assert kgroups_rs.clustering_accuracy(truth, result.labels) == 1.0


def test_the_result_does_not_depend_on_the_number_of_threads() -> None:
    X = _blobs(3, 30, seed=3)
    one = kgroups_rs.select_k(X, range(1, 6), n_threads=1, random_state=5)
    two = kgroups_rs.select_k(X, range(1, 6), n_threads=2, random_state=5)
    three = kgroups_rs.select_k(X, range(1, 6), n_threads=3, random_state=5)
    for other in (two, three):
        assert (one.k, one.kernel, one.rule) == (other.k, other.kernel, other.rule)
        np.testing.assert_array_equal(one.labels, other.labels)
        for name in one.table:
            np.testing.assert_array_equal(one.table[name], other.table[name])


def test_precomputed_kernel_is_chosen_by_stability() -> None:
    # An equilateral triangle of blobs: no merge of two is preferred, so k = 2 is unstable.
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(c, 0.5, (20, 2)) for c in ((0, 0), (10, 0), (5, 8.66))])
    G = kgroups_rs.energy_gram(X)
    result = kgroups_rs.select_k(G, range(1, 6), kernel="precomputed", random_state=0)
    assert (result.k, result.rule, result.kernel) == (3, "stability", None)
    assert np.isnan(result.table["stability"][0])


def test_the_knn_affinity_is_scikit_learns() -> None:
    pytest.importorskip("sklearn")
    X = np.random.default_rng(4).normal(size=(300, 3))
    indptr, indices, data = _core.knn_affinity(X, 10)
    ours = np.zeros((300, 300))
    for i in range(300):
        ours[i, indices[indptr[i] : indptr[i + 1]]] = data[indptr[i] : indptr[i + 1]]
    theirs = kgroups_rs.knn_kernel(X, 10).toarray()
    np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize(
    ("X", "k", "kernel", "message"),
    [
        (np.zeros((5, 2)) + np.arange(5)[:, None], range(1, 7), "auto", "beyond the number of points"),
        (np.ones((1, 2)), range(1, 3), "auto", "at least 2 points"),
        (np.array([[0.0, 1.0], [np.nan, 2.0], [3.0, 1.0]]), range(1, 3), "auto", "NaN"),
        (np.random.default_rng(0).normal(size=(10, 2)), [1, 3], "auto", "consecutive"),
        (np.random.default_rng(0).normal(size=(10, 2)), range(1, 2), "auto", "at least two"),
        (np.random.default_rng(0).normal(size=(10, 2)), range(0, 3), "auto", "start at 1"),
        (np.random.default_rng(0).normal(size=(10, 2)), range(1, 3), "gaussian", "kernel must be"),
        (np.random.default_rng(0).normal(size=(10, 2)), range(1, 3), "precomputed", "square"),
    ],
)
def test_bad_input_raises_value_error(X: np.ndarray, k: object, kernel: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        kgroups_rs.select_k(X, k, kernel=kernel)  # type: ignore[arg-type]


@pytest.mark.parametrize("stop", [10**8, 10**30])
def test_a_range_beyond_n_is_refused_without_building_it(stop: int) -> None:
    """A k range far beyond n is refused from its bounds, at once: its values are never
    listed (seconds and gigabytes for 10**8, a length beyond ssize_t for 10**30)."""
    X = np.random.default_rng(0).normal(size=(10, 2))
    start = time.perf_counter()
    with pytest.raises(ValueError, match=f"k reaches {stop - 1}, beyond the number of points n = 10"):
        kgroups_rs.select_k(X, range(1, stop))
    assert time.perf_counter() - start < 0.5
    with pytest.raises(ValueError, match="start at 1"):
        kgroups_rs.select_k(X, range(0, stop))
    with pytest.raises(ValueError, match="consecutive"):
        kgroups_rs.select_k(X, range(1, stop, 2))


def test_repeated_points_and_one_more_get_an_answer() -> None:
    """Ten points, each eight times, and one more: the default kernel="auto" answers for every
    seed, with no error about an internal `block`."""
    for seed in range(40):
        rng = np.random.default_rng(seed)
        X = np.vstack([np.repeat(rng.normal(size=(10, 2)), 8, axis=0), rng.normal(size=(1, 2))])
        result = kgroups_rs.select_k(X, random_state=seed)
        assert 1 <= result.k <= 10
        assert len(np.unique(result.labels)) == result.k


@pytest.mark.parametrize("scale", [2.0**600, 2.0**1000, 1e154, 1e306])
def test_data_of_huge_magnitude_get_the_same_answer(scale: float) -> None:
    """Finite data far beyond 1e153 are chosen for as the data themselves, with no error about
    an internal argument (`a`, `G`): the same k, partition and gaps, W_k in the data's units."""
    X = _blobs(3, 20)
    ours = kgroups_rs.select_k(X, range(1, 6), random_state=0)
    big = kgroups_rs.select_k(X * scale, range(1, 6), random_state=0)
    assert big.k == ours.k == 3
    same = lambda labels: labels[:, None] == labels[None, :]  # noqa: E731
    np.testing.assert_array_equal(same(big.labels), same(ours.labels))  # the same partition
    for column in ("gap_pc", "se_pc", "stability"):
        np.testing.assert_allclose(big.table[column], ours.table[column], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(big.table["log_within"], ours.table["log_within"] + np.log(scale), rtol=1e-12)
    if scale == 2.0**600:
        np.testing.assert_array_equal(big.table["within"], ours.table["within"] * scale)


def test_progress_reports_parts() -> None:
    events: list[tuple[int, int, int, float]] = []
    X = _blobs(2, 20)
    kgroups_rs.select_k(X, range(1, 4), n_refs=3, random_state=0, progress=lambda *e: events.append(e))
    assert events and all(e[0] == 0 for e in events)
    assert [e[1] for e in events] == list(range(1, len(events) + 1))
    assert all(e[2] == events[-1][1] for e in events)  # the planned total is what is done


def test_progress_covers_the_partition_of_every_point() -> None:
    """Beyond the statistics' sample (2 000 points) the partition of all points reports a
    part per start: the longest part of a large selection."""
    events: list[tuple[int, int, int, float]] = []
    X = _blobs(2, 1300)
    kgroups_rs.select_k(
        X, range(1, 4), n_refs=2, n_pairs=1, n_init=3, random_state=0, progress=lambda *e: events.append(e)
    )
    planned = 2 + 2 * 1 + 3 + 3  # references, stability subsamples, three fits, the starts
    assert sorted(e[1] for e in events) == list(range(1, planned + 1))
    assert all(e[2] == planned for e in events)


def test_table_to_pandas() -> None:
    pd = pytest.importorskip("pandas")
    result = kgroups_rs.select_k(_blobs(2, 20), range(1, 4), random_state=0)
    frame = result.to_pandas()
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.index) == [1, 2, 3]


@pytest.mark.skipif(sys.platform == "win32", reason="os.kill sends no SIGINT on Windows")
def test_ctrl_c_stops_select_k_within_a_second() -> None:
    X = np.random.default_rng(6).normal(size=(2000, 5))
    call = lambda: kgroups_rs.select_k(X, n_refs=200, n_threads=1, random_state=0)  # noqa: E731
    latency, stall = interrupted_while_counting(call, 1.0)
    assert stall < 0.5, f"select_k held the GIL for {stall:.2f} s"
    assert latency < 1.0, f"KeyboardInterrupt came {latency:.2f} s after SIGINT"


@pytest.mark.skipif(sys.platform == "win32", reason="os.kill sends no SIGINT on Windows")
def test_ctrl_c_stops_select_k_on_wide_data_within_a_second() -> None:
    """400 points in D = 4 000 (several seconds): the principal box's Gram matrix, its
    decomposition, the wide references and their fits hear Ctrl-C."""
    X = np.random.default_rng(6).normal(size=(400, 4000))
    call = lambda: kgroups_rs.select_k(X, range(1, 5), n_threads=1, random_state=0)  # noqa: E731
    latency, stall = interrupted_while_counting(call, 1.0)
    assert stall < 0.5, f"select_k held the GIL for {stall:.2f} s"
    assert latency < 1.0, f"KeyboardInterrupt came {latency:.2f} s after SIGINT"


def test_estimator_with_n_clusters_auto() -> None:
    pytest.importorskip("sklearn")
    X = _blobs(3)
    model = kgroups_rs.KernelKGroups(n_clusters="auto", random_state=0).fit(X)
    assert model.n_clusters_ == 3
    assert model.selection_ is not None and model.selection_.k == 3
    assert model.transform(X).shape == (120, 3)
    assert kgroups_rs.clustering_accuracy(np.repeat(np.arange(3), 40), model.labels_) == 1.0
    fixed = kgroups_rs.KernelKMeans(n_clusters=2, random_state=0).fit(X)
    assert fixed.n_clusters_ == 2 and fixed.selection_ is None
    G = kgroups_rs.energy_gram(X)
    precomputed = kgroups_rs.KernelKGroups(n_clusters="auto", kernel="precomputed", random_state=0)
    assert precomputed.fit(G).n_clusters_ >= 2
    with pytest.raises(ValueError, match="kernel='energy'"):
        kgroups_rs.KernelKGroups(n_clusters="auto", kernel="gaussian").fit(X)
    with pytest.raises(ValueError, match="sample_weight"):
        kgroups_rs.KernelKGroups(n_clusters="auto", kernel="energy").fit(X, sample_weight=np.ones(120))
    with pytest.raises(ValueError, match="sample_weight"):
        kgroups_rs.KernelKGroups(n_clusters="auto").fit(X, sample_weight=np.arange(1.0, 121.0))
    # The default kernel with n_clusters="auto" is kernel="auto", which takes unit weights.
    assert kgroups_rs.KernelKGroups(n_clusters="auto", random_state=0).fit(
        X, sample_weight=np.ones(120)
    ).n_clusters_ == 3


def test_warm_starts_only_lower_w_and_make_it_fall_with_k() -> None:
    # Eight blobs, one cold start per k: the cold W_k can rise with k; with the warm start
    # (the best k - 1 partition with a cluster split) it never rises, and no k is worse.
    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal(rng.uniform(0, 20, 2), 1.0, (25, 2)) for _ in range(8)])
    cold_rises = 0
    for seed in range(4):
        args = dict(kernel="energy", n_init=1, n_refs=2, n_pairs=0, random_state=seed)
        cold = kgroups_rs.select_k(X, range(1, 11), warm_start=False, **args).table["within"]
        warm = kgroups_rs.select_k(X, range(1, 11), warm_start=True, **args).table["within"]
        assert np.all(warm <= cold)
        assert np.all(np.diff(warm) <= 0), warm
        cold_rises += int(np.any(np.diff(cold) > 0))
    assert cold_rises >= 1  # else the data show nothing
    # The precomputed path takes the option too.
    G = kgroups_rs.energy_gram(X)
    args = dict(kernel="precomputed", n_init=1, random_state=0)
    cold = kgroups_rs.select_k(G, range(1, 6), warm_start=False, **args).table
    warm = kgroups_rs.select_k(G, range(1, 6), **args).table
    assert np.all(warm["within"] <= cold["within"])


@pytest.mark.parametrize("bad", [1, "yes", None])
def test_warm_start_must_be_a_bool(bad: object) -> None:
    with pytest.raises(TypeError, match="warm_start"):
        kgroups_rs.select_k(_blobs(2), warm_start=bad)  # type: ignore[arg-type]


def _gap_k(gap: np.ndarray, se: np.ndarray) -> int:
    """The smallest k >= 2 with Gap(k) >= Gap(k+1) - s_{k+1} (Tibshirani's rule) that no
    larger j beats by Gap(j) - Gap(k) > max(0.1, 3 s_j) and by more than twice k's own gain
    Gap(k) - Gap(1) > 0; else the last k."""
    K = len(gap)
    for k in range(2, K):
        gained = gap[k - 1] - gap[0]
        later = range(k + 1, K + 1)
        margin = max(gap[j - 1] - gap[k - 1] - max(0.1, 3 * se[j - 1]) for j in later)
        rise = max(gap[j - 1] for j in later) - gap[k - 1]
        beaten = gained > 0 and margin > 0 and rise > 2 * gained
        if gap[k - 1] >= gap[k] - se[k] and not beaten:
            return k
    return K


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_energy_rule_reads_the_table(seed: int) -> None:
    """The structure score and k follow from the table by the documented formulas."""
    X = np.vstack([_blobs(4, seed=3 + seed), np.random.default_rng(4 + seed).uniform(-3, 20, (30, 2))])
    result = kgroups_rs.select_k(X, range(1, 9), kernel="energy", random_state=seed, n_pairs=0)
    gap, se = result.table["gap_pc"], result.table["se_pc"]
    score = max(gap[k - 1] - gap[0] - max(0.1, 3 * se[k - 1]) for k in range(2, 9))
    assert result.energy_structure == pytest.approx(score, rel=1e-12, abs=1e-12)
    assert score > 0
    assert result.k == _gap_k(gap, se)
    assert result.at_range_end == (result.k == 8)


def test_scores_are_none_without_a_gap() -> None:
    G = kgroups_rs.energy_gram(_blobs(3))
    for result in (
        kgroups_rs.select_k(G, range(1, 5), kernel="precomputed", random_state=0),
        kgroups_rs.select_k(np.ones((10, 2)), range(1, 4), random_state=0),
    ):
        assert result.cut_ratio is None and not result.at_range_end
        assert np.isnan(result.energy_structure)
