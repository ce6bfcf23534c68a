"""cluster_significance: the test of "one Gaussian" by a k-group energy partition."""

from __future__ import annotations

import kgroups_rs
import numpy as np
import pytest
from _interrupt import interrupted_while_counting


def blobs(n_each: int, dim: int, separation: float, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(n_each, dim))
    b = rng.normal(size=(n_each, dim))
    b[:, 0] += separation
    return np.vstack([a, b])


def elongated_gaussian(n: int, seed: int) -> np.ndarray:
    """One Gaussian in the plane, standard deviations 3 and 1, rotated by 30 degrees."""
    rng = np.random.default_rng(seed)
    angle = np.pi / 6
    rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    return (rng.normal(size=(n, 2)) * [3.0, 1.0]) @ rot.T


def test_separated_blobs_get_the_smallest_pvalue() -> None:
    X = blobs(40, 3, 8.0, 0)
    result = kgroups_rs.cluster_significance(X, 2, n_null=49, random_state=1)
    assert result.pvalue == pytest.approx(1 / 50)
    assert result.pvalue_se == pytest.approx(np.sqrt(0.02 * 0.98 / 49))
    assert result.null_statistics.shape == (49,)
    assert result.n_null == 49
    assert np.all(result.null_statistics > result.statistic)
    assert len(set(result.labels[:40])) == 1 and len(set(result.labels[40:])) == 1
    assert result.labels[0] != result.labels[40]
    assert result.labels.dtype == np.int64
    assert result.sample_eigenvalues.shape == (3,)
    assert np.all(np.diff(result.sample_eigenvalues) <= 0)


def test_statistic_is_energy_within_over_total() -> None:
    X = blobs(20, 2, 2.0, 3)
    result = kgroups_rs.cluster_significance(X, 2, n_null=9, random_state=0)
    stats = kgroups_rs.energy_statistics(result.labels, X=X)
    assert result.within == pytest.approx(stats.within, rel=1e-12)
    assert result.total == pytest.approx(stats.total, rel=1e-12)
    assert result.statistic == pytest.approx(stats.within / stats.total, rel=1e-12)
    # the same partition as kernel k-groups on the energy kernel finds, same W
    assert result.clustering.within == pytest.approx(stats.within, rel=1e-9)


def test_a_single_elongated_gaussian_is_rarely_rejected() -> None:
    """The null keeps the data's covariance: a single elongated Gaussian is not rejected
    (a null that ignored the anisotropy would reject it at nearly every seed)."""
    pvalues = []
    for seed in range(10):
        X = elongated_gaussian(80, 100 + seed)
        pvalues.append(kgroups_rs.cluster_significance(X, 2, n_null=39, random_state=seed, n_init=2).pvalue)
    assert sum(p <= 0.05 for p in pvalues) <= 2, pvalues
    assert np.median(pvalues) > 0.2, pvalues


def test_uniform_data_are_rejected_as_not_one_gaussian() -> None:
    """Uniform data in a square hold no clusters, yet they are not one Gaussian: the test
    rejects them (p at its floor), as its documentation and summary say."""
    X = np.random.default_rng(0).uniform(size=(200, 2))
    result = kgroups_rs.cluster_significance(X, 2, n_null=99, random_state=0)
    assert result.pvalue <= 0.02, result.pvalue


def test_summary_and_repr_name_the_one_gaussian_null() -> None:
    """What the result says it tested: "one Gaussian", and that a small p is not by itself
    evidence of clusters (uniform data are rejected too)."""
    result = kgroups_rs.cluster_significance(blobs(20, 2, 6.0, 0), 2, n_null=19, random_state=0)
    assert result.null_hypothesis == "the data are one Gaussian (any mean and covariance)"
    text = result.summary()
    assert "one Gaussian" in text and "uniform" in text and "not that they hold clusters" in text
    assert "p = 0.05 +/- 0.05 (19 null data sets)" in text
    assert "2-group partition of 40 points" in text
    line = repr(result)
    assert line.startswith("SignificanceResult(H0='one Gaussian', pvalue=0.05,")
    assert "n=40, k=2, n_null=19)" in line
    assert "\n" not in line and "array" not in line


def test_removed_null_options_are_gone() -> None:
    """Only the calibrated null is offered: the plug-in nulls ("sample", "debiased",
    "hard-threshold") and the ``covariance`` argument that chose them are gone."""
    X = blobs(20, 2, 3.0, 0)
    with pytest.raises(TypeError, match="covariance"):
        kgroups_rs.cluster_significance(X, 2, n_null=5, covariance="hard-threshold")  # type: ignore[call-arg]
    result = kgroups_rs.cluster_significance(X, 2, n_null=5)
    for name in ("covariance", "null_eigenvalues", "background_variance"):
        assert not hasattr(result, name), name


def test_same_result_for_any_thread_count() -> None:
    X = blobs(30, 3, 1.5, 5)
    one = kgroups_rs.cluster_significance(X, 2, n_null=30, random_state=7, n_threads=1)
    two = kgroups_rs.cluster_significance(X, 2, n_null=30, random_state=7, n_threads=2)
    three = kgroups_rs.cluster_significance(X, 2, n_null=30, random_state=7, n_threads=3)
    for other in (two, three):
        np.testing.assert_array_equal(one.null_statistics, other.null_statistics)
        np.testing.assert_array_equal(one.labels, other.labels)
        assert one.pvalue == other.pvalue and one.statistic == other.statistic
    again = kgroups_rs.cluster_significance(X, 2, n_null=30, random_state=8, n_threads=1)
    assert not np.array_equal(one.null_statistics, again.null_statistics)


def test_more_dimensions_than_points() -> None:
    X = blobs(10, 50, 12.0, 2)
    result = kgroups_rs.cluster_significance(X, 2, n_null=19, random_state=0)
    assert result.pvalue == pytest.approx(1 / 20)
    # rank n - 1 = 19: beyond it the sample eigenvalues are 0
    assert result.sample_eigenvalues.shape == (50,)
    assert np.all(result.sample_eigenvalues[19:] == 0)
    noise = np.random.default_rng(3).normal(size=(20, 50))
    assert kgroups_rs.cluster_significance(noise, 2, n_null=19, random_state=0).pvalue > 0.05


def test_pvalues_are_uniform_for_one_gaussian() -> None:
    """The default test is exact: over 100 single Gaussians (isotropic and elongated) its
    p-values are uniform on the multiples of 1/20 (binomial sd of the fractions below about
    0.045; the bounds are three sd)."""
    pvalues = []
    for i in range(100):
        rng = np.random.default_rng(i)
        sd = [1.0, 1.0, 1.0] if i % 2 else [3.0, 1.0, 0.3]
        X = rng.normal(size=(40, 3)) * sd
        pvalues.append(kgroups_rs.cluster_significance(X, 2, n_null=19, random_state=i, n_init=1).pvalue)
    p = np.array(pvalues)
    assert abs(np.mean(p <= 0.25 + 1e-12) - 0.25) < 0.13, p
    assert abs(np.mean(p <= 0.5 + 1e-12) - 0.5) < 0.15, p


def test_k_three_and_one_dimensional_input() -> None:
    x = np.concatenate([np.linspace(0, 1, 20), np.linspace(10, 11, 20), np.linspace(20, 21, 20)])
    result = kgroups_rs.cluster_significance(x, 3, n_null=19, random_state=0)
    assert result.pvalue == pytest.approx(1 / 20)
    assert len(np.unique(result.labels)) == 3


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"k": 1}, ValueError, "k must be at least 2"),
        ({"k": 0}, ValueError, "k must be"),
        ({"k": 41}, ValueError, "k must be between"),
        ({"n_null": 0}, ValueError, "n_null"),
        ({"init": "spectral-ish"}, ValueError, "init"),
        ({"init": np.zeros(40, dtype=np.int64)}, TypeError, "initial labels"),
        ({"algorithm": "nope"}, ValueError, "algorithm"),
        ({"n_threads": 0}, ValueError, "n_threads"),
        ({"k": 2.5}, TypeError, "k"),
    ],
)
def test_bad_arguments(kwargs: dict, error: type, match: str) -> None:
    X = blobs(20, 2, 3.0, 0)
    args = {"k": 2, "n_null": 5}
    args.update(kwargs)
    with pytest.raises(error, match=match):
        kgroups_rs.cluster_significance(X, **args)


def test_bad_data() -> None:
    with pytest.raises(ValueError, match="k must be between"):
        kgroups_rs.cluster_significance(np.array([[1.0, 2.0]]), 2, n_null=5)
    X = blobs(10, 2, 3.0, 0)
    X[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        kgroups_rs.cluster_significance(X, 2, n_null=5)
    with pytest.raises(ValueError, match="coincide"):
        kgroups_rs.cluster_significance(np.ones((10, 3)), 2, n_null=5)
    with pytest.raises(TypeError, match="real numbers"):
        kgroups_rs.cluster_significance(np.ones((10, 2), dtype=complex), 2, n_null=5)


def test_progress_reports_each_null_data_set() -> None:
    seen: list[tuple[int, int, int, float]] = []
    X = blobs(15, 2, 2.0, 0)
    result = kgroups_rs.cluster_significance(
        X, 2, n_null=12, random_state=0, progress=lambda *event: seen.append(event)
    )
    assert sorted(event[0] for event in seen) == list(range(12))
    assert sorted(event[3] for event in seen) == sorted(result.null_statistics.tolist())


def test_progress_bar(capsys: pytest.CaptureFixture[str]) -> None:
    X = blobs(15, 2, 2.0, 0)
    kgroups_rs.cluster_significance(X, 2, n_null=12, random_state=0, progress=True)
    assert "12" in capsys.readouterr().err


def test_ctrl_c_stops_on_wide_data_within_a_second() -> None:
    """600 points in D = 600: the sample covariance and its eigen-decomposition (tens of
    seconds) hear Ctrl-C."""
    X = np.random.default_rng(0).normal(size=(600, 600))

    def call() -> object:
        return kgroups_rs.cluster_significance(X, 2, n_null=10, random_state=0, n_threads=1)

    latency, stall = interrupted_while_counting(call, 1.0)
    assert latency < 1.0
    assert stall < 0.5


def test_ctrl_c_stops_within_a_second() -> None:
    X = np.random.default_rng(0).normal(size=(600, 10))

    def call() -> object:
        return kgroups_rs.cluster_significance(X, 3, n_null=100_000, random_state=0, n_threads=1)

    latency, stall = interrupted_while_counting(call)
    assert latency < 1.0
    assert stall < 0.5


@pytest.mark.parametrize("scale", [2.0**900, 1e306])
def test_data_of_huge_magnitude_are_tested_as_the_data(scale: float) -> None:
    """Finite data near 1e306 get the data's statistic, partition and p-value, with no error
    about a `G` the caller never passed; dispersions in their units."""
    X = blobs(15, 2, 4.0, 0)
    ours = kgroups_rs.cluster_significance(X, 2, n_null=19, random_state=0)
    big = kgroups_rs.cluster_significance(X * scale, 2, n_null=19, random_state=0)
    assert big.pvalue == ours.pvalue
    same = lambda labels: labels[:, None] == labels[None, :]  # noqa: E731
    np.testing.assert_array_equal(same(big.labels), same(ours.labels))  # the same partition
    np.testing.assert_allclose(big.statistic, ours.statistic, rtol=1e-12)
    np.testing.assert_allclose(big.null_statistics, ours.null_statistics, rtol=1e-9)
    np.testing.assert_allclose(big.within, ours.within * scale, rtol=1e-12)
    np.testing.assert_allclose(big.total, ours.total * scale, rtol=1e-12)
