"""The scikit-learn estimators KernelKGroups and KernelKMeans."""

from __future__ import annotations

import inspect
import subprocess
import sys
import textwrap
from typing import Any

import kgroups_rs
import numpy as np
import pytest
from reference import semimetric_matrix, within_from_semimetric

pytest.importorskip("sklearn")

from kgroups_rs import KernelKGroups, KernelKMeans  # noqa: E402
from kgroups_rs.estimator import CHECKS_NOT_GUARANTEED, expected_failed_checks  # noqa: E402
from sklearn.base import clone  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

# ----------------------------------------------------------------------------- scikit-learn checks

CHECKED = [
    KernelKGroups(),
    KernelKGroups(kernel="gaussian"),
    KernelKGroups(kernel="exponential", sigma=1.0, algorithm="lloyd"),
    KernelKGroups(kernel="energy", alpha=0.5, init="random", n_init=2),
    KernelKMeans(),
    KernelKMeans(algorithm="lloyd-online", kernel="gaussian", sigma=2.0),
    KernelKGroups(kernel="precomputed"),
    KernelKGroups(kernel_storage="matrix-free"),
    KernelKMeans(kernel="exponential", kernel_storage="matrix-free"),
]


def _always_failing(estimator: Any) -> dict[str, str]:
    """The estimator's declared failures less those that may pass: these must fail."""
    return {
        name: reason
        for name, reason in expected_failed_checks(estimator).items()
        if name not in CHECKS_NOT_GUARANTEED
    }


# scikit-learn >= 1.7 makes the expected failures strict (a check that passes fails the test);
# 1.6, the lowest version kgroups_rs supports, has no such option and runs them non-strict.
_STRICT = (
    {"xfail_strict": True} if "xfail_strict" in inspect.signature(parametrize_with_checks).parameters else {}
)


@parametrize_with_checks(CHECKED, expected_failed_checks=_always_failing, **_STRICT)
def test_sklearn_compatible(estimator: Any, check: Any) -> None:
    name = getattr(check, "func", check).__name__
    if name not in CHECKS_NOT_GUARANTEED:
        check(estimator)
        return
    try:
        check(estimator)
    except AssertionError:
        pytest.xfail(CHECKS_NOT_GUARANTEED[name])


@pytest.mark.parametrize(
    "estimator", [KernelKGroups(kernel="precomputed"), KernelKMeans(kernel="gaussian")],
    ids=["KernelKGroups-precomputed", "KernelKMeans-gaussian"],
)
def test_check_estimator_passes_with_the_declared_failures(estimator: Any) -> None:
    # What a user runs (the example of expected_failed_checks' docstring): every check
    # passes or is one of the failures the estimator declares, and those have reasons.
    from sklearn.utils.estimator_checks import check_estimator

    declared = expected_failed_checks(estimator)
    results = check_estimator(estimator, expected_failed_checks=declared, on_skip=None)
    failed = {r["check_name"] for r in results if r["status"] in ("failed", "xfail")}
    assert failed <= set(declared), failed
    assert all(declared.values())
    if estimator.kernel == "precomputed":
        assert "check_clustering" in failed  # a real failure, declared
        with pytest.raises(Exception):  # noqa: B017 - whatever the check raises
            check_estimator(estimator, on_skip=None)


# ----------------------------------------------------------------------------- helpers


def blobs(n: int = 120, k: int = 3, dim: int = 2, seed: int = 0, spread: float = 1.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=6.0, size=(k, dim))
    return centres[rng.integers(0, k, size=n)] + spread * rng.normal(size=(n, dim))


RHO = {"energy": "rho_1", "gaussian": "rho_hat_{}", "exponential": "rho_tilde_{}"}


def rho_name(model: Any) -> str:
    if model.kernel_ == "energy":
        return f"rho_{model.alpha}"
    return RHO[model.kernel_].format(model.sigma_)


def brute_force_nearest_mean(
    X_new: np.ndarray, X: np.ndarray, labels: np.ndarray, w: np.ndarray, rho: str, k: int
) -> np.ndarray:
    """argmin_l ||phi(x) - mu_l||^2 from the semimetric alone (no kernel, no base point):
    ||phi(x) - mu_l||^2 = sum_y w_y rho(x, y) / s_l - sum_{y,y'} w_y w_y' rho(y, y') / (2 s_l^2)."""
    both = semimetric_matrix(np.vstack([X_new, X]), rho)
    R_new, R = both[: len(X_new), len(X_new) :], both[len(X_new) :, len(X_new) :]
    d2 = np.empty((len(X_new), k))
    for l_ in range(k):
        m = labels == l_
        s = w[m].sum()
        d2[:, l_] = R_new[:, m] @ w[m] / s - w[m] @ R[np.ix_(m, m)] @ w[m] / (2 * s**2)
    return np.argmin(d2, axis=1)


def relabel_to(reference: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """The permutation of cluster numbers that maps ``labels`` onto ``reference``, asserting
    that the two are the same partition."""
    pairs = np.unique(np.column_stack([labels, reference]), axis=0)
    assert len(np.unique(pairs[:, 0])) == len(pairs) == len(np.unique(pairs[:, 1])), pairs
    mapping = dict(zip(pairs[:, 0].tolist(), pairs[:, 1].tolist()))
    return np.array([mapping[v] for v in labels.tolist()])


# ----------------------------------------------------------------------------- behaviour


def test_package_imports_without_sklearn() -> None:
    code = textwrap.dedent(
        """
        import sys
        sys.modules["sklearn"] = None  # as if scikit-learn were not installed
        import kgroups_rs
        assert "KernelKGroups" in dir(kgroups_rs) and "KernelKGroups" in kgroups_rs.__all__
        kgroups_rs.kernel_kgroups([[1.0, 0.0], [0.0, 1.0]], 2, random_state=0)
        try:
            kgroups_rs.KernelKGroups
        except ImportError as exc:
            assert 'pip install "kgroups_rs[sklearn]"' in str(exc), exc
        else:
            raise AssertionError("KernelKGroups imported without scikit-learn")
        try:
            kgroups_rs.no_such_name
        except AttributeError:
            pass
        print("ok")
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


@pytest.mark.parametrize("n_init", [1, 3])
def test_same_result_as_kernel_kgroups_on_the_centred_energy_kernel(n_init: int) -> None:
    X = blobs(seed=1)
    model = KernelKGroups(3, n_init=n_init, random_state=7).fit(X)
    G = kgroups_rs.energy_gram(X - X.mean(axis=0), base="origin")
    ref = kgroups_rs.kernel_kgroups(G, 3, n_init=n_init, random_state=7)
    np.testing.assert_array_equal(model.labels_, ref.labels)
    assert model.objective_ == pytest.approx(ref.objective, rel=1e-12)
    assert model.within_ == pytest.approx(ref.within, rel=1e-12)
    assert model.n_iter_ == ref.n_iter and model.converged_ == ref.converged
    assert model.labels_.dtype == np.int64 and model.n_features_in_ == 2
    np.testing.assert_array_equal(model.cluster_weights_, np.bincount(model.labels_, minlength=3))
    np.testing.assert_allclose(model.mean_, X.mean(axis=0))


def test_kernel_kmeans_estimator_matches_function() -> None:
    X = blobs(seed=2)
    for variant, algorithm in (("batch", "lloyd"), ("online", "lloyd-online")):
        model = KernelKMeans(3, algorithm=algorithm, kernel="gaussian", sigma=3.0, random_state=3).fit(X)
        G = kgroups_rs.energy_gram(X - X.mean(axis=0), semimetric="gaussian", sigma=3.0, base="origin")
        ref = kgroups_rs.kernel_kmeans(G, 3, algorithm=algorithm, n_init=5, random_state=3)
        np.testing.assert_array_equal(model.labels_, ref.labels)
        with pytest.warns(FutureWarning, match="variant` is deprecated"):
            old = KernelKMeans(3, variant=variant, kernel="gaussian", sigma=3.0, random_state=3).fit(X)
        np.testing.assert_array_equal(old.labels_, ref.labels)
    lloyd = KernelKGroups(3, algorithm="lloyd", random_state=3).fit(X)
    G = kgroups_rs.energy_gram(X - X.mean(axis=0), base="origin")
    ref = kgroups_rs.kernel_kmeans(G, 3, n_init=5, random_state=3)
    np.testing.assert_array_equal(lloyd.labels_, ref.labels)


@pytest.mark.parametrize(
    "model",
    [
        KernelKGroups(3, random_state=0),
        KernelKGroups(3, kernel="energy", alpha=0.5, random_state=0),
        KernelKGroups(3, kernel="energy", alpha=2.0, random_state=0),
        KernelKGroups(3, kernel="gaussian", random_state=0),
        KernelKGroups(3, kernel="exponential", sigma=0.7, random_state=0),
        KernelKGroups(3, algorithm="lloyd", random_state=0),
        KernelKMeans(3, algorithm="lloyd-online", random_state=0),
    ],
    ids=lambda m: repr(m),
)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_predict_on_training_data_equals_labels(model: Any, seed: int) -> None:
    # A partition Hartigan (or Lloyd) cannot improve has every point nearest its own mean, so
    # the nearest-mean rule of predict reproduces labels_ on the training data. Overlapping
    # blobs make this non-trivial (many points near a boundary).
    X = blobs(n=150, dim=3, seed=seed, spread=3.0)
    model = clone(model).fit(X)
    assert model.converged_
    np.testing.assert_array_equal(model.predict(X), model.labels_)


@pytest.mark.parametrize("kernel", ["energy", "gaussian", "exponential"])
@pytest.mark.parametrize("weighted", [False, True])
def test_predict_is_nearest_weighted_mean_in_feature_space(kernel: str, weighted: bool) -> None:
    rng = np.random.default_rng(5)
    X = blobs(n=60, dim=2, seed=5, spread=2.0) + 100.0  # far from the origin on purpose
    w = rng.uniform(0.2, 3.0, size=60) if weighted else np.ones(60)
    model = KernelKGroups(3, kernel=kernel, alpha=1.0, random_state=0)
    model.fit(X, sample_weight=w if weighted else None)
    X_new = rng.uniform(X.min(axis=0) - 2, X.max(axis=0) + 2, size=(200, 2))
    expected = brute_force_nearest_mean(X_new, X, model.labels_, w, rho_name(model), 3)
    np.testing.assert_array_equal(model.predict(X_new), expected)
    # W of the fitted partition, from the semimetric directly (SPEC eqs. 13-16).
    R = semimetric_matrix(X, rho_name(model))
    assert model.within_ == pytest.approx(within_from_semimetric(R, model.labels_, w), rel=1e-9)


def test_sigma_defaults_to_the_bandwidth_of_the_training_data() -> None:
    X = blobs(seed=3) * 4.0
    model = KernelKGroups(3, kernel="gaussian", random_state=0).fit(X)
    assert model.sigma_ == pytest.approx(kgroups_rs.bandwidth(X), rel=1e-12)
    fixed = KernelKGroups(3, kernel="gaussian", sigma=model.sigma_, random_state=0).fit(X)
    np.testing.assert_array_equal(fixed.labels_, model.labels_)
    # predict uses the training bandwidth, not the bandwidth of the new data
    np.testing.assert_array_equal(model.predict(X[:5] * 1.0), fixed.predict(X[:5]))
    assert not hasattr(KernelKGroups(3).fit(X), "sigma_")


def test_translation_does_not_change_the_clustering() -> None:
    # The data are translated by their mean before building the kernel, so a large offset
    # changes nothing but rounding. (Several starts reach this optimum; which one wins is
    # decided by rounding, so the cluster numbering may differ: compare partitions.)
    X = blobs(n=200, seed=4, spread=2.5)
    base = KernelKGroups(3, random_state=0).fit(X)
    far = KernelKGroups(3, random_state=0).fit(X + 1e6)
    np.testing.assert_array_equal(relabel_to(base.labels_, far.labels_), base.labels_)
    assert far.within_ == pytest.approx(base.within_, rel=1e-9)
    X_new = X[:50] + np.random.default_rng(0).normal(size=(50, 2))
    np.testing.assert_array_equal(
        relabel_to(base.predict(X_new), far.predict(X_new + 1e6)), base.predict(X_new)
    )


@pytest.mark.parametrize("sparse", [False, True])
def test_precomputed_kernel_matches_the_energy_kernel(sparse: bool) -> None:
    X = blobs(n=90, seed=6, spread=1.5)
    X_new = blobs(n=30, seed=7, spread=1.5)
    model = KernelKGroups(3, random_state=2).fit(X)
    centre = X.mean(axis=0)
    G = kgroups_rs.energy_gram(X - centre, base="origin")
    K_new = kgroups_rs.energy_gram(X_new - centre, X - centre, base="origin")
    if sparse:
        scipy_sparse = pytest.importorskip("scipy.sparse")
        G, K_new = scipy_sparse.csr_array(G), scipy_sparse.csr_array(K_new)
    pre = KernelKGroups(3, kernel="precomputed", random_state=2).fit(G)
    assert pre.n_features_in_ == 90
    if sparse:
        # The sparse path sums in another order, so another of the starts that reach this
        # optimum may win: the same partition, possibly numbered differently.
        np.testing.assert_array_equal(relabel_to(model.labels_, pre.labels_), model.labels_)
        np.testing.assert_array_equal(relabel_to(model.predict(X_new), pre.predict(K_new)),
                                      model.predict(X_new))
    else:
        np.testing.assert_array_equal(pre.labels_, model.labels_)
        np.testing.assert_array_equal(pre.predict(K_new), model.predict(X_new))
    with pytest.raises(ValueError, match="90 features"):
        pre.predict(np.zeros((3, 89)))


def test_zero_weights_drop_points_from_the_objective() -> None:
    X = blobs(n=100, seed=8, spread=2.0)
    w = np.ones(100)
    w[::7] = 0.0
    keep = w > 0
    for kernel in ("energy", "gaussian"):
        weighted = KernelKGroups(3, kernel=kernel, random_state=4).fit(X, sample_weight=w)
        dropped = KernelKGroups(3, kernel=kernel, random_state=4).fit(X[keep])
        np.testing.assert_array_equal(weighted.labels_[keep], dropped.labels_)
        assert weighted.objective_ == pytest.approx(dropped.objective_, rel=1e-12)
        # the zero-weight points get the nearest cluster mean
        np.testing.assert_array_equal(weighted.labels_[~keep], dropped.predict(X[~keep]))
    G = kgroups_rs.energy_gram(X - X[keep].mean(axis=0), base="origin")
    pre = KernelKGroups(3, kernel="precomputed", random_state=4).fit(G, sample_weight=w)
    on_X = KernelKGroups(3, random_state=4).fit(X, sample_weight=w)
    np.testing.assert_array_equal(pre.labels_, on_X.labels_)


@pytest.mark.parametrize(
    "model",
    [
        KernelKGroups(3, random_state=0),
        KernelKGroups(3, kernel="gaussian", random_state=1),
        KernelKGroups(3, kernel="energy", alpha=0.5, algorithm="lloyd", random_state=2),
        KernelKMeans(3, kernel="exponential", sigma=1.5, algorithm="lloyd-online", random_state=3),
    ],
    ids=lambda m: repr(m),
)
def test_matrix_free_storage_gives_the_dense_result(model: Any) -> None:
    # kernel_storage only changes how the kernel is held: the same start gives the same
    # partition, objective, and predictions (zero weights included: they are predicted).
    X = blobs(n=120, dim=3, seed=6, spread=2.5)
    w = np.random.default_rng(6).uniform(0.5, 2.0, size=120)
    w[::11] = 0.0
    X_new = blobs(n=40, dim=3, seed=7, spread=3.0)
    dense = clone(model).set_params(kernel_storage="dense").fit(X, sample_weight=w)
    free = clone(model).set_params(kernel_storage="matrix-free").fit(X, sample_weight=w)
    assert (dense.kernel_storage_, free.kernel_storage_) == ("dense", "matrix-free")
    np.testing.assert_array_equal(free.labels_, dense.labels_)
    assert free.objective_ == pytest.approx(dense.objective_, rel=1e-12)
    assert free.within_ == pytest.approx(dense.within_, rel=1e-12)
    np.testing.assert_allclose(free._mean_sq_norms, dense._mean_sq_norms, rtol=1e-12)
    np.testing.assert_array_equal(free.predict(X_new), dense.predict(X_new))


def test_auto_storage_goes_matrix_free_above_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    from kgroups_rs import estimator

    X = blobs(n=100, seed=13)
    assert KernelKGroups(3, random_state=0).fit(X).kernel_storage_ == "dense"
    # 8 * 100**2 bytes is just above this limit.
    monkeypatch.setattr(estimator, "DENSE_KERNEL_MAX_BYTES", 8 * 100 * 100 - 1)

    def no_dense_gram(*args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and "Y" not in kwargs:  # the n x n training kernel; cross kernels pass
            raise AssertionError("fit built the dense kernel matrix")
        return kgroups_rs.energy_gram(*args, **kwargs)

    monkeypatch.setattr(estimator, "energy_gram", no_dense_gram)
    model = KernelKGroups(3, random_state=0).fit(X)
    assert model.kernel_storage_ == "matrix-free"
    dense = KernelKGroups(3, random_state=0, kernel_storage="dense")
    monkeypatch.undo()
    np.testing.assert_array_equal(model.labels_, dense.fit(X).labels_)


def test_integer_weights_give_the_objective_of_repeated_points() -> None:
    X = blobs(n=40, seed=9)
    w = np.arange(40) % 3 + 1.0
    model = KernelKGroups(3, random_state=0).fit(X, sample_weight=w)
    repeated = np.repeat(X, w.astype(int), axis=0)
    labels_rep = np.repeat(model.labels_, w.astype(int))
    R = semimetric_matrix(repeated, "rho_1")
    assert model.within_ == pytest.approx(within_from_semimetric(R, labels_rep), rel=1e-9)
    np.testing.assert_allclose(model.cluster_weights_, np.bincount(model.labels_, weights=w))


def test_initial_labels_and_fit_predict() -> None:
    X = blobs(n=60, seed=10)
    init = np.arange(60) % 3
    model = KernelKGroups(3, init=init, n_init=1)
    labels = model.fit_predict(X)
    G = kgroups_rs.energy_gram(X - X.mean(axis=0), base="origin")
    np.testing.assert_array_equal(labels, kgroups_rs.kernel_kgroups(G, 3, init).labels)
    with pytest.raises(ValueError, match="n_init"):
        KernelKGroups(3, init=init, n_init=2).fit(X)


def _invalid(name: str, allowed: str) -> str:
    """scikit-learn's message for a parameter outside its constraints (InvalidParameterError,
    a ValueError and a TypeError): it names the parameter, what is allowed and the value."""
    return rf"The '{name}' parameter of KernelKGroups must be {allowed}\. Got .* instead"


@pytest.mark.parametrize(
    ("params", "error", "match"),
    [
        ({"kernel": "rbf"}, ValueError, _invalid("kernel", r"a str among \{.*'gaussian'.*\} or None")),
        ({"alpha": 0.0}, ValueError, _invalid("alpha", r"a float in the range \(0\.0, 2\.0\]")),
        ({"alpha": 2.5}, ValueError, _invalid("alpha", r"a float in the range \(0\.0, 2\.0\]")),
        ({"alpha": "one"}, TypeError, _invalid("alpha", r"a float in the range \(0\.0, 2\.0\]")),
        # alpha is checked whatever the kernel, as scikit-learn checks every parameter
        ({"kernel": "gaussian", "alpha": 3.0}, ValueError, _invalid("alpha", "a float .*")),
        ({"kernel": "gaussian", "sigma": -1.0}, ValueError,
         _invalid("sigma", r"a float in the range \(0\.0, inf\), a str among \{.*'median'.*\} or None")),
        ({"kernel": "gaussian", "sigma": "mode"}, ValueError, _invalid("sigma", "a float .*")),
        ({"kernel": "exponential", "sigma": float("nan")}, ValueError, _invalid("sigma", "a float .*")),
        ({"kernel": "gaussian", "sigma": float("inf")}, ValueError, _invalid("sigma", "a float .*")),
        ({"n_clusters": 0}, ValueError,
         _invalid("n_clusters", r"an int in the range \[1, inf\) or a str among \{.auto.\}")),
        ({"n_clusters": 2.0}, TypeError, _invalid("n_clusters", "an int .*")),
        ({"n_clusters": 11}, ValueError, "n_clusters = 11 must be <= n_samples = 10"),
        # scikit-learn's Interval(Integral) admits True; the package's counts do not
        ({"n_clusters": True}, TypeError, "n_clusters must be an integer, got bool"),
        ({"n_init": True}, TypeError, "n_init must be an integer, got bool"),
        ({"max_iter": True}, TypeError, "max_iter must be an integer, got bool"),
        ({"algorithm": "elkan"}, ValueError, _invalid("algorithm", r"a str among \{.*'lloyd-online'.*\}")),
        ({"init": "kmeans"}, ValueError,
         _invalid("init", r"a str among \{.*'k-means\+\+'.*\} or an array-like")),
        ({"init": [0, 1, 0]}, ValueError, "init labels must have shape"),
        ({"n_init": 0}, ValueError, _invalid("n_init", r"an int in the range \[1, inf\)")),
        ({"max_iter": 0}, ValueError, _invalid("max_iter", r"an int in the range \[1, inf\)")),
        ({"n_threads": 0}, ValueError,
         _invalid("n_threads", r"an int in the range \[1, 1024\], an int in the range \(-inf, -1\] or None")),
        ({"n_threads": -10_000}, ValueError, "n_threads = -10000 leaves no thread"),
        ({"random_state": -1}, ValueError, _invalid("random_state", r"an int in the range \[0, inf\).*")),
        ({"random_state": "seed"}, TypeError, _invalid("random_state", ".*Generator.* or None")),
        ({"kernel_storage": "sparse"}, ValueError,
         _invalid("kernel_storage", r"a str among \{.*'matrix-free'.*\}")),
    ],
)
def test_bad_parameters(params: dict[str, Any], error: type, match: str) -> None:
    X = blobs(n=10, seed=11)
    with pytest.raises(error, match=match):
        KernelKGroups(**params).fit(X)


@pytest.mark.parametrize("estimator", [KernelKGroups(), KernelKMeans()], ids=repr)
def test_every_parameter_is_validated_by_scikit_learn(estimator: Any) -> None:
    # scikit-learn's own check (not among parametrize_with_checks'): every parameter has a
    # constraint, and a value of the wrong type or range raises InvalidParameterError
    # naming it, from fit and fit_predict.
    from sklearn.utils.estimator_checks import check_param_validation

    check_param_validation(type(estimator).__name__, estimator)


def test_parameters_are_checked_before_the_data() -> None:
    from sklearn.utils._param_validation import InvalidParameterError

    with pytest.raises(InvalidParameterError, match="'n_init' parameter"):
        KernelKGroups(n_init=0).fit([[np.nan]])  # the data would be refused too


def test_weighted_default_sigma_and_identical_points() -> None:
    X = blobs(n=50, seed=14)
    w = np.random.default_rng(14).uniform(0.5, 2.0, size=50)
    model = KernelKGroups(2, kernel="gaussian", random_state=0).fit(X, sample_weight=w)
    m = np.average(X, axis=0, weights=w)
    expected = np.sqrt(2.0 * w @ ((X - m) ** 2).sum(axis=1) / w.sum())
    assert model.sigma_ == pytest.approx(expected, rel=1e-12)
    # all points identical: the data's bandwidth is 0, any bandwidth gives the same clustering
    same = KernelKGroups(1, kernel="exponential", random_state=0).fit(np.ones((5, 2)))
    assert same.sigma_ == 1.0 and same.labels_.tolist() == [0] * 5


def test_bad_variant_and_inputs() -> None:
    X = blobs(n=10, seed=12)
    with pytest.raises(ValueError, match=r"The 'variant' parameter of KernelKMeans must be a str among "
                       r"\{.*'batch' \(deprecated\).*\} or None\. Got 'minibatch' instead"):
        KernelKMeans(variant="minibatch").fit(X)
    with pytest.raises(ValueError, match=r"The 'algorithm' parameter of KernelKMeans must be a str among "
                       r"\{('lloyd', 'lloyd-online'|'lloyd-online', 'lloyd')\}\. Got 'hartigan' instead"):
        KernelKMeans(algorithm="hartigan").fit(X)
    with pytest.raises(ValueError, match=r"The 'algorithm' parameter of KernelKGroups must be a str among "
                       r"\{.*'hartigan'.*\}\. Got 'batch' instead"):
        KernelKGroups(algorithm="batch").fit(X)
    with pytest.raises(ValueError, match="variant='batch' contradicts algorithm='lloyd-online'"):
        KernelKMeans(algorithm="lloyd-online", variant="batch").fit(X)
    with pytest.raises(ValueError, match="square"):
        KernelKGroups(kernel="precomputed").fit(np.ones((10, 3)))
    with pytest.raises(ValueError, match="sample_weight must be non-negative"):
        KernelKGroups().fit(X, sample_weight=-np.ones(10))
    with pytest.raises(ValueError, match="sample_weight must have shape"):
        KernelKGroups().fit(X, sample_weight=np.ones(9))
    with pytest.raises(ValueError, match="sample_weight must be finite"):
        KernelKGroups().fit(X, sample_weight=np.full(10, np.inf))
    w = np.zeros(10)
    w[0] = 1.0
    with pytest.raises(ValueError, match="n_samples = 1 .*positive sample_weight"):
        KernelKGroups(2).fit(X, sample_weight=w)
    with pytest.raises(ValueError, match="NaN"):
        KernelKGroups().fit(np.where(np.eye(10, 2) > 0, np.nan, X))


def test_auto_storage_chooses_by_expected_time() -> None:
    # One Hartigan start on few features: matrix-free (faster; same result for the same start).
    X = blobs(n=120, seed=5)
    model = KernelKGroups(3, n_init=1, random_state=0).fit(X)
    assert model.kernel_storage_ == "matrix-free"
    dense = KernelKGroups(3, n_init=1, random_state=0, kernel_storage="dense").fit(X)
    np.testing.assert_array_equal(model.labels_, dense.labels_)
    # Several starts, many features or Lloyd: dense.
    assert KernelKGroups(3, n_init=2, random_state=0).fit(X).kernel_storage_ == "dense"
    wide = np.random.default_rng(0).normal(size=(60, 40))
    assert KernelKGroups(3, n_init=1, random_state=0).fit(wide).kernel_storage_ == "dense"
    lloyd = KernelKGroups(3, n_init=1, algorithm="lloyd", random_state=0).fit(X)
    assert lloyd.kernel_storage_ == "dense"


# ----------------------------------------------------------------------------- transform, score


def _direct_distances(model: Any, X_train: np.ndarray, X_new: np.ndarray, w: Any = None) -> np.ndarray:
    """||phi(x) - mu_l||^2 from one kernel matrix of the new and training points together
    (base point: the training mean, as the estimator), by the definition of the mean."""
    kw = {"semimetric": "power", "alpha": model.alpha} if model.kernel_ == "energy" else {
        "semimetric": model.kernel_, "sigma": model.sigma_}
    both = np.vstack([X_new, X_train]) - model.mean_
    G = kgroups_rs.energy_gram(both, base="origin", **kw)
    m = X_new.shape[0]
    K_new, K_cross, K_train = np.diag(G)[:m], G[:m, m:], G[m:, m:]
    w = np.ones(X_train.shape[0]) if w is None else np.asarray(w, float)
    out = np.empty((m, model.n_clusters))
    for cluster in range(model.n_clusters):
        a = w * (model.labels_ == cluster)
        s = a.sum()
        out[:, cluster] = K_new - 2 * K_cross @ a / s + a @ K_train @ a / s**2
    return out


@pytest.mark.parametrize("params", [
    {"kernel": "energy"}, {"kernel": "energy", "alpha": 0.5}, {"kernel": "gaussian"},
    {"kernel": "exponential", "sigma": "median"}, {"kernel": "energy", "kernel_storage": "matrix-free"},
])
def test_transform_is_the_squared_distance_to_each_mean(params: dict[str, Any]) -> None:
    X = blobs(n=150, seed=21)
    X_new = blobs(n=40, seed=22)
    w = np.random.default_rng(3).uniform(0.5, 2.0, X.shape[0])
    model = KernelKGroups(3, random_state=0, **params).fit(X, sample_weight=w)
    D = model.transform(X_new)
    assert D.shape == (40, 3) and np.all(D >= 0)
    np.testing.assert_allclose(D, _direct_distances(model, X, X_new, w), rtol=1e-9, atol=1e-9)
    assert np.array_equal(D.argmin(axis=1), model.predict(X_new))
    assert np.array_equal(model.transform(X).argmin(axis=1), model.labels_)
    assert np.array_equal(KernelKGroups(3, random_state=0, **params).fit_transform(X, sample_weight=w),
                          model.transform(X))


def test_score_is_minus_the_within_dispersion_under_the_fitted_means() -> None:
    X = blobs(n=200, seed=31)
    w = np.random.default_rng(4).uniform(0.5, 2.0, 200)
    model = KernelKGroups(3, random_state=0).fit(X, sample_weight=w)
    # On the training data of a converged fit: every point is nearest its own mean, so the
    # score is -W.
    assert model.converged_
    assert model.score(X, sample_weight=w) == pytest.approx(-model.within_, rel=1e-10)
    X_new = blobs(n=50, seed=32)
    direct = _direct_distances(model, X, X_new, w).min(axis=1)
    assert model.score(X_new) == pytest.approx(-direct.sum(), rel=1e-10)
    v = np.arange(50) % 3
    assert model.score(X_new, sample_weight=v) == pytest.approx(-(v @ direct), rel=1e-10)
    # farther points score lower
    assert model.score(X_new + 100.0) < model.score(X_new)


def test_transform_and_score_do_not_exist_for_a_precomputed_kernel() -> None:
    X = blobs(n=30, seed=33)
    G = kgroups_rs.energy_gram(X)
    model = KernelKGroups(2, kernel="precomputed", random_state=0).fit(G)
    assert not hasattr(model, "transform") and not hasattr(model, "score")
    with pytest.raises(AttributeError, match="transform"):
        model.transform(G)


def test_cluster_sizes() -> None:
    X = blobs(n=90, seed=34)
    w = np.zeros(90)
    w[:60] = 2.5
    model = KernelKGroups(3, random_state=0).fit(X, sample_weight=w)
    assert model.cluster_sizes_.dtype == np.int64
    assert np.array_equal(model.cluster_sizes_, np.bincount(model.labels_, minlength=3))
    assert model.cluster_sizes_.sum() == 90  # weight-0 points counted where predict puts them
    np.testing.assert_allclose(model.cluster_weights_, np.bincount(model.labels_[:60], minlength=3) * 2.5)


def test_convergence_warning_is_scikit_learns() -> None:
    from sklearn.exceptions import ConvergenceWarning as SklearnConvergenceWarning

    X = blobs(n=300, seed=35, spread=4.0)
    with pytest.warns(SklearnConvergenceWarning, match="max_iter = 1"):
        KernelKGroups(5, max_iter=1, n_init=1, init="random", random_state=0).fit(X)
    with pytest.warns(kgroups_rs.ConvergenceWarning, match="max_iter = 1"):
        KernelKGroups(5, max_iter=1, n_init=1, init="random", random_state=0).fit(X)
    duplicates = np.repeat([[0.0, 0.0], [1.0, 1.0]], 10, axis=0)
    with pytest.warns(SklearnConvergenceWarning, match="only 2 distinct clusters were found for k = 3"):
        KernelKGroups(3, random_state=0).fit(duplicates)


def test_sigma_rules_and_n_threads_in_the_estimator() -> None:
    X = blobs(n=120, seed=36)
    w = np.random.default_rng(5).integers(0, 3, 120).astype(float)
    model = KernelKGroups(3, kernel="gaussian", sigma="median", random_state=0).fit(X, sample_weight=w)
    support = w > 0
    expected = kgroups_rs.bandwidth(X[support], "median", weights=w[support])
    assert model.sigma_ == pytest.approx(expected, rel=1e-12)
    mean = KernelKGroups(3, kernel="gaussian", sigma="mean", random_state=0).fit(X)
    default = KernelKGroups(3, kernel="gaussian", random_state=0).fit(X)
    assert mean.sigma_ == default.sigma_ == pytest.approx(kgroups_rs.bandwidth(X), rel=1e-12)
    one = KernelKGroups(3, random_state=0, n_threads=1).fit(X)
    for threads in (-1, None):
        other = KernelKGroups(3, random_state=0, n_threads=threads).fit(X)
        assert np.array_equal(other.labels_, one.labels_)


@pytest.mark.parametrize("estimator", [KernelKGroups, KernelKMeans])
def test_set_output_pandas_in_a_pipeline(estimator: Any) -> None:
    # As KMeans: transform's columns are named after the class, one per cluster.
    pd = pytest.importorskip("pandas")
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X = blobs(n=90, k=3, seed=4)
    frame = pd.DataFrame(X, columns=["a", "b"], index=[f"r{i}" for i in range(90)])
    prefix = estimator.__name__.lower()
    pipe = make_pipeline(StandardScaler(), estimator(3, random_state=0))
    pipe.set_output(transform="pandas")
    out = pipe.fit_transform(frame)
    assert isinstance(out, pd.DataFrame)
    assert list(out.columns) == [f"{prefix}0", f"{prefix}1", f"{prefix}2"]
    assert list(out.index) == list(frame.index)
    model = pipe[-1]
    assert list(model.get_feature_names_out()) == list(out.columns)
    # the same numbers as the default (numpy) output, and predict is unchanged
    Z = StandardScaler().fit_transform(X)
    plain = estimator(3, random_state=0).fit(Z)
    np.testing.assert_allclose(out.to_numpy(), plain.transform(Z))
    assert isinstance(pipe.transform(frame), pd.DataFrame)
    np.testing.assert_array_equal(pipe.predict(frame), plain.predict(Z))
    assert pipe.score(frame) == pytest.approx(plain.score(Z))


def test_get_feature_names_out() -> None:
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        KernelKGroups(2).get_feature_names_out()
    model = KernelKGroups(4, random_state=0).fit(blobs(n=60, k=4))
    names = model.get_feature_names_out()
    assert names.dtype == object and list(names) == [f"kernelkgroups{j}" for j in range(4)]
    # still no transform for a precomputed kernel, set_output or not
    precomputed = KernelKGroups(2, kernel="precomputed").set_output(transform="default")
    assert not hasattr(precomputed, "transform") and not hasattr(precomputed, "fit_transform")
