"""Energy Gram matrices from data (``energy_gram``), from a semimetric matrix
(``gram_from_semimetric``) and the default bandwidth (``bandwidth``).

Every entry is checked against a direct pairwise evaluation (scipy ``cdist``, then the
semimetric and the kernel formula of SPEC "Semimetrics and kernels"); the centred matrix
against ``-1/2 J R J`` computed with numpy. "Relative error" of a kernel entry
``G_ab = 1/2 [rho(a, 0) + rho(b, 0) - rho(a, b)]`` means relative to the size of the terms,
``|rho(a, 0)| + |rho(b, 0)| + |rho(a, b)|``: the entry itself may cancel to ~0, and no
evaluation of the formula can do better than that scale. Near-duplicate points check that
distances keep their relative accuracy where ``|x|^2 + |y|^2 - 2 x.y`` would cancel.

Also: data of any finite magnitude (``X * 1e-170`` ... ``X * 1e200``) against numpy in a
power-of-two scaled frame, and clear errors where the kernel itself is not representable;
the default base point (the mean: translation invariant); MemoryError for outputs larger
than memory; Ctrl-C (a real SIGINT) stopping each builder within a second.
"""

from __future__ import annotations

import time
from typing import Any, Optional

import kgroups_rs
import numpy as np
import numpy.typing as npt
import pytest
from _interrupt import interrupted_after, send_sigint
from reference import gram_origin, objective, semimetric_matrix
from scipy.spatial.distance import cdist

Float = npt.NDArray[np.float64]

# (semimetric, keyword arguments) of the three semimetrics, with explicit parameters.
SEMIMETRICS: list[tuple[str, dict[str, float]]] = [
    ("power", {"alpha": 1.0}),
    ("power", {"alpha": 0.5}),
    ("power", {"alpha": 2.0}),
    ("exponential", {"sigma": 0.8}),
    ("gaussian", {"sigma": 1.3}),
]
SEMIMETRIC_IDS = [f"{name}-{next(iter(kw.values()))}" for name, kw in SEMIMETRICS]
ALL_SEMIMETRICS = pytest.mark.parametrize(("semimetric", "params"), SEMIMETRICS, ids=SEMIMETRIC_IDS)


def rho_of_distance(d: Float, semimetric: str, alpha: float = 1.0, sigma: Optional[float] = None) -> Float:
    """rho from Euclidean distances ``d`` (SPEC eqs. 52-54); ``2 - 2 e^-t`` as ``-2 expm1(-t)``."""
    if semimetric == "power":
        return np.asarray(d**alpha, dtype=np.float64)
    assert sigma is not None
    if semimetric == "exponential":
        return np.asarray(-2.0 * np.expm1(-d / (2.0 * sigma)), dtype=np.float64)
    return np.asarray(-2.0 * np.expm1(-(d**2) / (2.0 * sigma**2)), dtype=np.float64)


def direct_semimetric(X: Float, Y: Optional[Float] = None, **params: Any) -> Float:
    """R_ab = rho(x_a, y_b) by scipy cdist."""
    return rho_of_distance(cdist(X, X if Y is None else Y), **params)


def direct_origin(X: Float, **params: Any) -> tuple[Float, Float]:
    """(G, scale): G_ab = 1/2 [rho(a,0) + rho(b,0) - rho(a,b)] and the size of its terms."""
    r0 = rho_of_distance(np.linalg.norm(X, axis=1), **params)
    R = direct_semimetric(X, **params)
    G = 0.5 * (r0[:, None] + r0[None, :] - R)
    scale = np.abs(r0)[:, None] + np.abs(r0)[None, :] + np.abs(R)
    return G, scale


def direct_mean(X: Float, **params: Any) -> tuple[Float, Float]:
    """(G, scale) with the mean of the points as base point."""
    r0 = rho_of_distance(np.linalg.norm(X - X.mean(axis=0), axis=1), **params)
    R = direct_semimetric(X, **params)
    G = 0.5 * (r0[:, None] + r0[None, :] - R)
    scale = np.abs(r0)[:, None] + np.abs(r0)[None, :] + np.abs(R)
    return G, scale


def direct_centered(R: Float) -> Float:
    """-1/2 J R J with J = I - 11^T / n, by explicit matrix products."""
    n = R.shape[0]
    J = np.eye(n) - np.full((n, n), 1.0 / n)
    return -0.5 * (J @ R @ J)


def assert_close_to_scale(got: Any, want: Float, scale: Any, rel: float, what: str = "") -> None:
    err = np.abs(np.asarray(got, dtype=np.float64) - want)
    worst = float(np.max(err / np.maximum(scale, np.finfo(float).tiny)))
    assert worst <= rel, f"{what}: worst relative error {worst:.3g} > {rel:g}"


def params_of(semimetric: str, params: dict[str, float]) -> dict[str, Any]:
    return {"semimetric": semimetric, **params}


def data(n: int, dim: int, seed: int, shift: float = 0.0) -> Float:
    return np.random.default_rng(seed).normal(size=(n, dim)) + shift


# ------------------------------------------------------------ entries against direct evaluation


@ALL_SEMIMETRICS
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("shape", [(40, 3), (300, 7)])  # 300 > one 256-row tile
def test_origin_f64_matches_cdist(semimetric: str, params: dict[str, float], order: str, shape: Any) -> None:
    X = np.asarray(data(*shape, seed=1), order=order)  # type: ignore[call-overload]
    kw = params_of(semimetric, params)
    G = kgroups_rs.energy_gram(X, base="origin", **kw)
    assert G.dtype == np.float64 and G.shape == (shape[0], shape[0])
    want, scale = direct_origin(np.ascontiguousarray(X), **kw)
    assert_close_to_scale(G, want, scale, 1e-12, "origin f64")
    np.testing.assert_array_equal(G, G.T)  # each pair computed once and mirrored


@ALL_SEMIMETRICS
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("shape", [(40, 3), (300, 7)])
def test_centered_f64_matches_numpy_JRJ(
    semimetric: str, params: dict[str, float], order: str, shape: Any
) -> None:
    X = np.asarray(data(*shape, seed=2, shift=3.0), order=order)  # type: ignore[call-overload]
    kw = params_of(semimetric, params)
    G = kgroups_rs.energy_gram(X, base="centered", **kw)
    R = direct_semimetric(np.ascontiguousarray(X), **kw)
    assert_close_to_scale(G, direct_centered(R), np.max(np.abs(R)), 1e-12, "centered f64")
    np.testing.assert_array_equal(G, G.T)
    # double-centred: every row sums to zero
    assert np.max(np.abs(G.sum(axis=1))) <= 1e-12 * X.shape[0] * np.max(np.abs(R))


@ALL_SEMIMETRICS
@pytest.mark.parametrize("base", ["origin", "mean", "centered"])
def test_float32_output(semimetric: str, params: dict[str, float], base: str) -> None:
    X = data(120, 4, seed=3)
    kw = params_of(semimetric, params)
    G32 = kgroups_rs.energy_gram(X, base=base, dtype=np.float32, **kw)
    assert G32.dtype == np.float32 and G32.flags.c_contiguous
    np.testing.assert_array_equal(G32, G32.T)
    if base == "origin":
        want, scale = direct_origin(X, **kw)
    elif base == "mean":
        want, scale = direct_mean(X, **kw)
    else:
        R = direct_semimetric(X, **kw)
        want, scale = direct_centered(R), np.max(np.abs(R))
    assert_close_to_scale(G32, want, scale, 1e-6, "f32")
    # rounded once from the f64 value
    G64 = kgroups_rs.energy_gram(X, base=base, **kw)
    np.testing.assert_array_equal(G32, G64.astype(np.float32))
    # dtype given as a string
    np.testing.assert_array_equal(kgroups_rs.energy_gram(X, base=base, dtype="float32", **kw), G32)


def test_agrees_with_the_reference_module() -> None:
    """The independent direct formulas of reference.py (no scipy) agree too."""
    X = data(30, 3, seed=4)
    for name, kw in [("rho_1", {"alpha": 1.0}), ("rho_0.5", {"alpha": 0.5}), ("rho_2", {"alpha": 2.0})]:
        G = kgroups_rs.energy_gram(X, base="origin", **kw)
        np.testing.assert_allclose(G, gram_origin(X, name), rtol=1e-12, atol=1e-12 * np.abs(G).max())
    G = kgroups_rs.energy_gram(X, semimetric="gaussian", sigma=0.7, base="origin")
    np.testing.assert_allclose(G, gram_origin(X, "rho_hat_0.7"), rtol=1e-12, atol=1e-14)
    G = kgroups_rs.energy_gram(X, semimetric="exponential", sigma=0.7, base="origin")
    np.testing.assert_allclose(G, gram_origin(X, "rho_tilde_0.7"), rtol=1e-12, atol=1e-14)


@ALL_SEMIMETRICS
def test_one_dimensional_X_is_n_points_on_a_line(semimetric: str, params: dict[str, float]) -> None:
    x = np.random.default_rng(5).lognormal(size=50)
    kw = params_of(semimetric, params)
    G = kgroups_rs.energy_gram(x, base="origin", **kw)
    assert G.shape == (50, 50)
    np.testing.assert_array_equal(G, kgroups_rs.energy_gram(x[:, None], base="origin", **kw))
    d = np.abs(x[:, None] - x[None, :])
    r0 = rho_of_distance(np.abs(x), **kw)
    R = rho_of_distance(d, **kw)
    want = 0.5 * (r0[:, None] + r0[None, :] - R)
    assert_close_to_scale(G, want, r0[:, None] + r0[None, :] + R, 1e-12, "1-D")


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8, np.bool_, np.float32])
def test_integer_and_other_real_dtypes_are_converted(dtype: Any) -> None:
    X = np.random.default_rng(6).integers(0, 6, size=(30, 3)).astype(dtype)
    as_float = X.astype(np.float64)
    for base in ("origin", "mean", "centered"):
        np.testing.assert_array_equal(
            kgroups_rs.energy_gram(X, base=base), kgroups_rs.energy_gram(as_float, base=base)
        )
    want, scale = direct_origin(as_float, semimetric="power", alpha=1.0)
    assert_close_to_scale(kgroups_rs.energy_gram(X, base="origin"), want, scale, 1e-12, "int")


def test_strided_view_and_read_only_input() -> None:
    X = data(60, 6, seed=7)
    view = X[::2, ::2]
    np.testing.assert_array_equal(kgroups_rs.energy_gram(view), kgroups_rs.energy_gram(view.copy()))
    frozen = X.copy()
    frozen.flags.writeable = False
    np.testing.assert_array_equal(kgroups_rs.energy_gram(frozen), kgroups_rs.energy_gram(X))


def test_input_is_not_modified() -> None:
    X = data(40, 3, seed=8)
    before = X.copy()
    kgroups_rs.energy_gram(X, base="centered")
    kgroups_rs.energy_gram(X, X[:5])
    np.testing.assert_array_equal(X, before)


def test_single_point() -> None:
    X = np.array([[3.0, 4.0]])
    np.testing.assert_array_equal(kgroups_rs.energy_gram(X, base="origin"), [[5.0]])
    np.testing.assert_array_equal(kgroups_rs.energy_gram(X), [[0.0]])  # base: the mean, X itself
    np.testing.assert_array_equal(kgroups_rs.energy_gram(X, base="centered"), [[0.0]])


def test_small_exact_values() -> None:
    x = np.array([1.0, 4.0])
    np.testing.assert_array_equal(kgroups_rs.energy_gram(x, base="origin"), [[1.0, 1.0], [1.0, 4.0]])
    np.testing.assert_array_equal(kgroups_rs.energy_gram(x, base="centered"), [[0.75, -0.75], [-0.75, 0.75]])
    np.testing.assert_array_equal(
        kgroups_rs.energy_gram(x, alpha=2.0, base="origin"), [[1.0, 4.0], [4.0, 16.0]]
    )
    # the default base point is the mean 2.5: K(1, 4) = (1.5 + 1.5 - 3) / 2 = 0
    np.testing.assert_array_equal(kgroups_rs.energy_gram(x), [[1.5, 0.0], [0.0, 1.5]])
    np.testing.assert_array_equal(kgroups_rs.energy_gram(x, alpha=2.0), [[2.25, -2.25], [-2.25, 2.25]])


# ------------------------------------------------------------------------------ near duplicates


def near_duplicates(seed: int = 9) -> tuple[Float, Float]:
    """Points with norms ~10 in D = 50; row 1 = row 0 + 1e-9 e_1; row 2 = row 0 - 3e-12 e_8.
    Returns (X, exact distances from row 0 to rows 1 and 2)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(6, 50)) * (10 / np.sqrt(50))
    X[1] = X[0]
    X[1, 0] += 1e-9
    X[2] = X[0]
    X[2, 7] -= 3e-12
    # the stored coordinates differ in one place, and that difference is exact (Sterbenz)
    exact = np.array([abs(X[1, 0] - X[0, 0]), abs(X[0, 7] - X[2, 7])])
    assert abs(exact[0] - 1e-9) < 1e-15 and abs(exact[1] - 3e-12) < 1e-15
    return X, exact


# sigma at the scale of the small distances, so that rho(x, x') = O(1) dominates the kernel
# entry; alpha = 1 and 0.5 make rho(x, x') a visible part of G_01 too.
NEAR_CASES: list[dict[str, Any]] = [
    {"semimetric": "power", "alpha": 1.0},
    {"semimetric": "power", "alpha": 0.5},
    {"semimetric": "exponential", "sigma": 1e-9},
    {"semimetric": "gaussian", "sigma": 1e-9},
    {"semimetric": "exponential", "sigma": 1.0},
    {"semimetric": "gaussian", "sigma": 1.0},
]


def naive_distance(a: Float, b: Float) -> float:
    """|a - b| by the expansion |a|^2 + |b|^2 - 2 a.b, clamped at 0 (what the test rules out)."""
    return float(np.sqrt(max(a @ a + b @ b - 2.0 * (a @ b), 0.0)))


@pytest.mark.parametrize("kw", NEAR_CASES, ids=lambda kw: "-".join(str(v) for v in kw.values()))
def test_near_duplicate_points_keep_relative_accuracy(kw: dict[str, Any]) -> None:
    X, exact = near_duplicates()
    norms = np.linalg.norm(X, axis=1)
    assert 5 < norms.min() and norms.max() < 20
    r_exact = rho_of_distance(exact, **kw)  # rho(x0, x1), rho(x0, x2) from the exact differences
    # 1. rho itself, from the data path of the energy statistics (singleton clusters: g = R)
    g = kgroups_rs.energy_statistics(np.arange(6), X=X, **kw).g
    np.testing.assert_allclose(g[0, 1:3], r_exact, rtol=1e-12, atol=0)
    np.testing.assert_allclose(g[1:3, 0], r_exact, rtol=1e-12, atol=0)
    # and E({x0}, {x1}) = 2 rho(x0, x1)
    assert kgroups_rs.energy_distance(X[:1], X[1:2], **kw) == pytest.approx(2 * r_exact[0], rel=1e-12)

    # 2. the Gram entries G_01, G_02 against the formula with the exact rho
    r0 = rho_of_distance(norms, **kw)
    want = 0.5 * (r0[0] + r0[1:3] - r_exact)
    G = kgroups_rs.energy_gram(X, base="origin", **kw)
    np.testing.assert_allclose(G[0, 1:3], want, rtol=1e-12, atol=0)
    # centred: -1/2 J R J with the rest of R by cdist (its near-duplicate entries made exact)
    R = direct_semimetric(X, **kw)
    R[0, 1:3] = R[1:3, 0] = r_exact
    R[1, 2] = R[2, 1] = rho_of_distance(np.linalg.norm(X[1] - X[2]), **kw)
    C = kgroups_rs.energy_gram(X, base="centered", **kw)
    assert_close_to_scale(C, direct_centered(R), np.max(np.abs(R)), 1e-12, "centered")

    # 3. the test has teeth: the |x|^2 + |y|^2 - 2 x.y expansion (even clamped at 0) misses by far
    d_naive = np.array([naive_distance(X[0], X[j]) for j in (1, 2)])
    naive_g = 0.5 * (r0[0] + r0[1:3] - rho_of_distance(d_naive, **kw))
    naive_rel = np.abs(rho_of_distance(d_naive, **kw) - r_exact) / r_exact
    assert naive_rel.min() > 1e-3, naive_rel  # rho of a near-duplicate pair: wrong in every digit
    if kw.get("sigma", 1e-9) == 1e-9:  # those cases also fail the Gram entries themselves
        gram_rel = np.abs(naive_g - want) / np.abs(want)
        assert gram_rel.max() > 10 * 1e-12, gram_rel


def test_near_duplicate_entries_are_exact_for_alpha_2() -> None:
    """rho_2 = |x - y|^2: G_01 = x0 . x1 exactly up to rounding of the terms."""
    X, exact = near_duplicates()
    g = kgroups_rs.energy_statistics(np.arange(6), X=X, alpha=2.0).g
    np.testing.assert_allclose(g[0, 1:3], exact**2, rtol=1e-12, atol=0)


# ------------------------------------------------------------------------------- cross kernel


@ALL_SEMIMETRICS
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_cross_kernel_is_a_block_of_the_stacked_gram(
    semimetric: str, params: dict[str, float], dtype: Any
) -> None:
    X, Y = data(70, 5, seed=10), data(300, 5, seed=11, shift=0.5)
    kw = params_of(semimetric, params)
    K = kgroups_rs.energy_gram(X, Y, dtype=dtype, base="origin", **kw)
    assert K.shape == (70, 300) and K.dtype == dtype
    G = kgroups_rs.energy_gram(np.vstack([X, Y]), dtype=dtype, base="origin", **kw)
    _, scale = direct_origin(np.vstack([X, Y]), **kw)
    rel = 1e-12 if dtype == np.float64 else 1e-6
    assert_close_to_scale(K, G[:70, 70:], scale[:70, 70:], rel, "cross vs block")
    assert_close_to_scale(K.T, G[70:, :70], scale[70:, :70], rel, "cross vs mirrored block")
    # and against the direct formula
    r0x = rho_of_distance(np.linalg.norm(X, axis=1), **kw)
    r0y = rho_of_distance(np.linalg.norm(Y, axis=1), **kw)
    want = 0.5 * (r0x[:, None] + r0y[None, :] - direct_semimetric(X, Y, **kw))
    assert_close_to_scale(K, want, scale[:70, 70:], rel, "cross vs cdist")


def test_cross_kernel_with_itself_is_the_gram() -> None:
    X = data(50, 3, seed=12, shift=1e6)
    for base in ("mean", "origin"):
        np.testing.assert_array_equal(
            kgroups_rs.energy_gram(X, X, base=base), kgroups_rs.energy_gram(X, base=base)
        )


@ALL_SEMIMETRICS
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_cross_kernel_with_the_mean_of_Y_as_base_point(
    semimetric: str, params: dict[str, float], dtype: Any
) -> None:
    """base="mean" (the default) with Y given: the base point is the mean of Y, not of X."""
    X, Y = data(70, 5, seed=10, shift=4.0), data(300, 5, seed=11, shift=3.0)
    kw = params_of(semimetric, params)
    K = kgroups_rs.energy_gram(X, Y, dtype=dtype, **kw)
    centre = Y.mean(axis=0)
    r0x = rho_of_distance(np.linalg.norm(X - centre, axis=1), **kw)
    r0y = rho_of_distance(np.linalg.norm(Y - centre, axis=1), **kw)
    R = direct_semimetric(X, Y, **kw)
    want = 0.5 * (r0x[:, None] + r0y[None, :] - R)
    scale = r0x[:, None] + r0y[None, :] + R
    assert_close_to_scale(K, want, scale, 1e-12 if dtype == np.float64 else 1e-6, "cross, mean of Y")


# ------------------------------------------------------------------------------- base points


def random_labels(n: int, k: int, rng: np.random.Generator) -> npt.NDArray[np.int64]:
    labels = rng.integers(0, k, size=n)
    labels[rng.permutation(n)[:k]] = np.arange(k)
    return labels.astype(np.int64)


def datasets() -> list[tuple[str, Float, int]]:
    rng = np.random.default_rng(13)
    two = np.vstack([rng.normal(size=(100, 10)), rng.normal(size=(100, 10)) + 0.7])  # eq. 56
    blobs = np.vstack([rng.normal(loc=c, scale=0.6, size=(60, 2)) for c in ((0, 0), (3, 0), (0, 3))])
    line = rng.lognormal(size=(150, 1))
    return [
        ("eq56", two, 2),
        ("eq56+1e3", two + 1e3, 2),
        ("blobs", blobs, 3),
        ("blobs-1e3", blobs - 1e3, 3),
        ("lognormal", line, 2),
    ]


@pytest.mark.parametrize(("name", "X", "k"), datasets(), ids=[d[0] for d in datasets()])
@pytest.mark.parametrize(
    "kw",
    [{"alpha": 1.0}, {"alpha": 1.5}, {"semimetric": "exponential", "sigma": 2.0}],
    ids=["rho1", "rho1.5", "exp"],
)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("other", ["centered", "mean"])
def test_origin_and_centered_give_the_same_clustering(
    name: str, X: Float, k: int, kw: dict[str, Any], weighted: bool, other: str
) -> None:
    """Any base (origin, mean, centered): the same labels and W; Q changes by a constant."""
    n = X.shape[0]
    rng = np.random.default_rng(14)
    w = rng.uniform(0.5, 2.0, size=n) if weighted else None
    Go = kgroups_rs.energy_gram(X, base="origin", **kw)
    Gc = kgroups_rs.energy_gram(X, base=other, **kw)
    constants = []
    for _ in range(3):
        init = random_labels(n, k, rng)
        ro = kgroups_rs.kernel_kgroups(Go, k, init, weights=w)
        rc = kgroups_rs.kernel_kgroups(Gc, k, init, weights=w)
        np.testing.assert_array_equal(ro.labels, rc.labels)
        assert ro.n_moves == rc.n_moves and ro.n_iter == rc.n_iter
        # W = sum_i w_i G_ii - Q does not depend on the base; Q changes by a constant
        assert ro.within == pytest.approx(rc.within, rel=1e-9)
        constants.append(ro.objective - rc.objective)
        for labels in (init, ro.labels, random_labels(n, k, rng)):
            constants.append(objective(Go, labels, w) - objective(Gc, labels, w))
    scale = max(abs(ro.objective), abs(rc.objective))
    assert max(constants) - min(constants) <= 1e-9 * scale, constants


def test_centered_is_better_conditioned_far_from_the_origin() -> None:
    """Shifting the data leaves the centred matrix (nearly) unchanged; rho recovered from it
    (G_aa + G_bb - 2 G_ab) stays accurate, while the origin matrix's entries grow with the shift."""
    X = data(80, 3, seed=15)
    C0 = kgroups_rs.energy_gram(X, base="centered")
    C1 = kgroups_rs.energy_gram(X + 1e6, base="centered")
    np.testing.assert_allclose(C1, C0, atol=1e-8)
    R = cdist(X, X)
    d = np.diag(C1)
    np.testing.assert_allclose(d[:, None] + d[None, :] - 2 * C1, R, atol=1e-8)
    assert np.abs(kgroups_rs.energy_gram(X + 1e6, base="origin")).min() > 1e5
    # so is the default, base="mean"
    M0 = kgroups_rs.energy_gram(X)
    np.testing.assert_allclose(kgroups_rs.energy_gram(X + 1e6), M0, atol=1e-8)
    assert np.abs(M0).max() < 10


# -------------------------------------------------------------------------- from a matrix R


@pytest.mark.parametrize("base", ["origin", "centered"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_gram_from_semimetric(base: str, dtype: Any) -> None:
    X = data(300, 4, seed=16)
    R = cdist(X, X)
    G = kgroups_rs.gram_from_semimetric(R, base, dtype=dtype)
    assert G.dtype == dtype
    rel = 1e-12 if dtype == np.float64 else 1e-6
    if base == "origin":  # base point: the first point
        want = 0.5 * (R[:, :1] + R[:1, :] - R)
        assert_close_to_scale(G, want, R[:, :1] + R[:1, :] + R, rel, "R origin")
    else:
        assert_close_to_scale(G, direct_centered(R), R.max(), rel, "R centered")
        # the same as from the data
        np.testing.assert_allclose(
            G, kgroups_rs.energy_gram(X, base="centered", dtype=dtype), atol=rel * R.max()
        )
    np.testing.assert_array_equal(G, G.T)


def test_gram_from_semimetric_gives_the_same_clustering_as_from_data() -> None:
    X = datasets()[0][1]
    R = semimetric_matrix(X, "rho_1")
    init = random_labels(X.shape[0], 2, np.random.default_rng(17))
    labels = [
        kgroups_rs.kernel_kgroups(G, 2, init).labels
        for G in (
            kgroups_rs.energy_gram(X),
            kgroups_rs.gram_from_semimetric(R),
            kgroups_rs.gram_from_semimetric(R, "centered"),
        )
    ]
    np.testing.assert_array_equal(labels[0], labels[1])
    np.testing.assert_array_equal(labels[0], labels[2])


def test_gram_from_semimetric_tolerates_rounding_and_converts_dtypes() -> None:
    X = data(20, 2, seed=18)
    R = cdist(X, X)
    noisy = R * (1 + 1e-13 * np.random.default_rng(0).normal(size=R.shape))
    np.fill_diagonal(noisy, 1e-15)
    np.testing.assert_allclose(
        kgroups_rs.gram_from_semimetric(noisy), kgroups_rs.gram_from_semimetric(R), atol=1e-11
    )
    Ri = np.abs(np.arange(5)[:, None] - np.arange(5)[None, :])
    np.testing.assert_array_equal(
        kgroups_rs.gram_from_semimetric(Ri), kgroups_rs.gram_from_semimetric(Ri.astype(float))
    )
    np.testing.assert_array_equal(
        kgroups_rs.gram_from_semimetric(np.asfortranarray(R)), kgroups_rs.gram_from_semimetric(R)
    )


# ------------------------------------------------------------------------------- bandwidth


@pytest.mark.parametrize("shape", [(50, 1), (200, 7), (3, 2)])
@pytest.mark.parametrize("shift", [0.0, 1e4])
def test_bandwidth_is_the_pairwise_definition(shape: Any, shift: float) -> None:
    X = data(*shape, seed=19, shift=shift)
    direct = np.sqrt(np.mean(cdist(X, X, "sqeuclidean")))
    assert kgroups_rs.bandwidth(X) == pytest.approx(direct, rel=1e-12 if shift == 0 else 1e-7)
    # shift-invariant, computed about the mean (exact, unlike the O(n^2) sum of shifted squares)
    assert kgroups_rs.bandwidth(X) == pytest.approx(kgroups_rs.bandwidth(X - shift), rel=1e-9)


def test_bandwidth_small_cases() -> None:
    assert kgroups_rs.bandwidth([0.0, 2.0]) == pytest.approx(np.sqrt(2), rel=1e-15)
    assert kgroups_rs.bandwidth(np.array([[0, 0], [3, 4]])) == pytest.approx(np.sqrt(12.5), rel=1e-15)


@pytest.mark.parametrize("semimetric", ["exponential", "gaussian"])
@pytest.mark.parametrize("base", ["origin", "centered"])
def test_sigma_none_uses_the_bandwidth(semimetric: str, base: str) -> None:
    X = data(60, 3, seed=20, shift=1.0)
    sigma = kgroups_rs.bandwidth(X)
    np.testing.assert_array_equal(
        kgroups_rs.energy_gram(X, semimetric=semimetric, base=base),
        kgroups_rs.energy_gram(X, semimetric=semimetric, base=base, sigma=sigma),
    )
    assert not np.array_equal(
        kgroups_rs.energy_gram(X, semimetric=semimetric, base=base),
        kgroups_rs.energy_gram(X, semimetric=semimetric, base=base, sigma=2 * sigma),
    )


# ------------------------------------------------------------------------ thread independence


@pytest.mark.parametrize(("semimetric", "params"), SEMIMETRICS[::2], ids=SEMIMETRIC_IDS[::2])
@pytest.mark.parametrize("base", ["origin", "mean", "centered"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_same_bits_for_any_thread_count(
    semimetric: str, params: dict[str, float], base: str, dtype: Any
) -> None:
    X = data(3 * 256 + 17, 5, seed=21, shift=2.0)  # 4 tiles, the last one partial
    kw = params_of(semimetric, params)
    one = kgroups_rs.energy_gram(X, base=base, dtype=dtype, n_threads=1, **kw)
    for threads in (2, 3):
        np.testing.assert_array_equal(
            one, kgroups_rs.energy_gram(X, base=base, dtype=dtype, n_threads=threads, **kw)
        )
    if base == "mean":
        return  # gram_from_semimetric has no coordinates, hence no mean
    R = direct_semimetric(X, **kw)
    one = kgroups_rs.gram_from_semimetric(R, base, dtype=dtype, n_threads=1)
    np.testing.assert_array_equal(one, kgroups_rs.gram_from_semimetric(R, base, dtype=dtype, n_threads=2))


def test_cross_kernel_same_bits_for_any_thread_count() -> None:
    X, Y = data(100, 4, seed=22), data(2500, 4, seed=23)
    for base in ("mean", "origin"):
        one = kgroups_rs.energy_gram(X, Y, n_threads=1, base=base)
        np.testing.assert_array_equal(one, kgroups_rs.energy_gram(X, Y, n_threads=2, base=base))


# ------------------------------------------------------------------------------ bad input

X_OK = np.random.default_rng(24).normal(size=(10, 3))


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_X(bad: float) -> None:
    X = X_OK.copy()
    X[4, 1] = bad
    with pytest.raises(ValueError, match=r"X contains NaN or infinity at row 4, column 1"):
        kgroups_rs.energy_gram(X)
    with pytest.raises(ValueError, match=r"X contains NaN or infinity"):
        kgroups_rs.bandwidth(X)
    with pytest.raises(ValueError, match=r"Y contains NaN or infinity"):
        kgroups_rs.energy_gram(X_OK, X)


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (0,), (0, 0)])
def test_empty_X(shape: Any) -> None:
    with pytest.raises(ValueError, match=r"X must have at least one row and one column"):
        kgroups_rs.energy_gram(np.zeros(shape))
    with pytest.raises(ValueError, match=r"X must have at least one row and one column"):
        kgroups_rs.bandwidth(np.zeros(shape))
    with pytest.raises(ValueError, match=r"Y must have at least one row and one column"):
        kgroups_rs.energy_gram(X_OK, np.zeros(shape))


def test_X_of_three_dimensions() -> None:
    with pytest.raises(ValueError, match=r"X must be a 1-D or 2-D array"):
        kgroups_rs.energy_gram(np.zeros((2, 2, 2)))


@pytest.mark.parametrize("alpha", [0.0, -1.0, 2.5, np.nan, np.inf])
def test_bad_alpha(alpha: float) -> None:
    with pytest.raises(ValueError, match=r"alpha = .* is not allowed.*0 < alpha <= 2"):
        kgroups_rs.energy_gram(X_OK, alpha=alpha)
    with pytest.raises(ValueError, match=r"alpha = .* is not allowed"):
        kgroups_rs.energy_gram(X_OK, X_OK, alpha=alpha)


@pytest.mark.parametrize("semimetric", ["exponential", "gaussian"])
@pytest.mark.parametrize("sigma", [0.0, -1.0, np.nan, np.inf, -np.inf])
def test_bad_sigma(semimetric: str, sigma: float) -> None:
    with pytest.raises(ValueError, match=r"sigma = .* is not allowed; the bandwidth must be finite and > 0"):
        kgroups_rs.energy_gram(X_OK, semimetric=semimetric, sigma=sigma)
    with pytest.raises(ValueError, match=r"sigma = .* is not allowed"):
        kgroups_rs.energy_gram(X_OK, semimetric=semimetric, sigma=sigma, base="centered")


def test_default_sigma_of_identical_points() -> None:
    with pytest.raises(ValueError, match=r"all points of X are identical.*pass sigma"):
        kgroups_rs.energy_gram(np.ones((5, 2)), semimetric="gaussian")
    with pytest.raises(ValueError, match=r"all points of X are identical"):
        kgroups_rs.bandwidth(np.ones((5, 2)))
    # with an explicit sigma it is fine (an all-zero centred matrix)
    G = kgroups_rs.energy_gram(np.ones((5, 2)), semimetric="gaussian", sigma=1.0, base="centered")
    np.testing.assert_array_equal(G, np.zeros((5, 5)))


@pytest.mark.parametrize("semimetric", ["euclidean", "Power", "", "rho_1"])
def test_unknown_semimetric(semimetric: str) -> None:
    with pytest.raises(ValueError, match=r"semimetric must be one of \('power', 'exponential', 'gaussian'\)"):
        kgroups_rs.energy_gram(X_OK, semimetric=semimetric)


@pytest.mark.parametrize("base", ["zero", "center", "Origin", ""])
def test_unknown_base(base: str) -> None:
    with pytest.raises(ValueError, match=r"base must be one of \('mean', 'origin', 'centered'\)"):
        kgroups_rs.energy_gram(X_OK, base=base)
    R = cdist(X_OK, X_OK)
    with pytest.raises(ValueError, match=r"base must be one of \('origin', 'centered'\)"):
        kgroups_rs.gram_from_semimetric(R, base)


def test_no_mean_base_for_a_semimetric_matrix() -> None:
    with pytest.raises(ValueError, match=r"base must be one of \('origin', 'centered'\), got 'mean'"):
        kgroups_rs.gram_from_semimetric(cdist(X_OK, X_OK), "mean")
    with pytest.raises(ValueError, match=r"invalid `base`: Base::Mean needs the coordinates"):
        kgroups_rs._core.gram_from_semimetric(cdist(X_OK, X_OK), "mean", False)


@pytest.mark.parametrize("dtype", [np.int32, np.float16, np.complex128, "longdouble", object])
def test_bad_dtype(dtype: Any) -> None:
    with pytest.raises(TypeError, match=r"dtype must be float64 or float32"):
        kgroups_rs.energy_gram(X_OK, dtype=dtype)
    with pytest.raises(TypeError, match=r"dtype must be float64 or float32"):
        kgroups_rs.gram_from_semimetric(cdist(X_OK, X_OK), dtype=dtype)


def test_X_and_Y_with_different_dimensions() -> None:
    with pytest.raises(ValueError, match=r"X has D=3 columns but Y has D=2"):
        kgroups_rs.energy_gram(X_OK, X_OK[:, :2])


def test_Y_with_centered_base() -> None:
    with pytest.raises(ValueError, match=r"base='centered' is not available for a cross kernel"):
        kgroups_rs.energy_gram(X_OK, X_OK, base="centered")
    message = r"invalid `base`: a cross kernel \(Y given\) is defined for base='mean'"
    with pytest.raises(ValueError, match=message):
        kgroups_rs._core.energy_gram(X_OK, X_OK, "power", 1.0, None, "centered", False)


@pytest.mark.parametrize(
    "value", [X_OK.astype(np.complex128), np.array([["a", "b"]]), np.array([[None, 1.0]])]
)
def test_non_real_X_is_a_type_error(value: Any) -> None:
    with pytest.raises(TypeError, match=r"X must hold real numbers"):
        kgroups_rs.energy_gram(value)
    with pytest.raises(TypeError, match=r"Y must hold real numbers"):
        kgroups_rs.energy_gram(X_OK[:, :2], value)
    with pytest.raises(TypeError, match=r"X must hold real numbers"):
        kgroups_rs.bandwidth(value)


def test_bad_n_threads() -> None:
    with pytest.raises(ValueError, match=r"n_threads = 0 leaves no thread on this machine"):
        kgroups_rs.energy_gram(X_OK, n_threads=0)
    with pytest.raises(ValueError, match=r"n_threads = -100000 leaves no thread"):
        kgroups_rs.energy_gram(X_OK, n_threads=-100_000)
    with pytest.raises(ValueError, match=r"n_threads must be between 1 and 1024, got 2000"):
        kgroups_rs.energy_gram(X_OK, n_threads=2000)
    with pytest.raises(TypeError, match=r"n_threads must be an integer"):
        kgroups_rs.energy_gram(X_OK, n_threads=1.5)


R_OK = cdist(X_OK, X_OK)


def bad_R(kind: str) -> Float:
    R = R_OK.copy()
    if kind == "nan":
        R[2, 5] = R[5, 2] = np.nan
    elif kind == "inf":
        R[2, 5] = R[5, 2] = np.inf
    elif kind == "asymmetric":
        R[2, 5] += 0.1
    elif kind == "negative":
        R[2, 5] = R[5, 2] = -0.5
    elif kind == "diagonal":
        R[3, 3] = 0.5
    return R


R_ERRORS = [
    ("nan", r"R contains NaN or infinity at row 2, column 5"),
    ("inf", r"R contains NaN or infinity at row 2, column 5"),
    ("asymmetric", r"R must be symmetric: R\[2, 5\] = .* but R\[5, 2\]"),
    ("negative", r"R\[2, 5\] = -0.5 is negative"),
    ("diagonal", r"R\[3, 3\] = 0.5 but a semimetric matrix must have a zero diagonal"),
]


@pytest.mark.parametrize(("kind", "message"), R_ERRORS, ids=[e[0] for e in R_ERRORS])
@pytest.mark.parametrize("base", ["origin", "centered"])
def test_bad_semimetric_matrix(kind: str, message: str, base: str) -> None:
    with pytest.raises(ValueError, match=message):
        kgroups_rs.gram_from_semimetric(bad_R(kind), base)


@pytest.mark.parametrize("shape", [(10, 9), (10,), (0, 0), (2, 2, 2)])
def test_R_not_square(shape: Any) -> None:
    with pytest.raises(ValueError, match=r"R must be a non-empty square \(n, n\) matrix"):
        kgroups_rs.gram_from_semimetric(np.zeros(shape))


def test_complex_R_is_a_type_error() -> None:
    with pytest.raises(TypeError, match=r"R must hold real numbers"):
        kgroups_rs.gram_from_semimetric(R_OK.astype(np.complex128))


# ------------------------------------------------------------------- data of any magnitude

MAGNITUDE_CASES: list[tuple[str, dict[str, float]]] = [
    ("power", {"alpha": 1.0}),
    ("power", {"alpha": 0.5}),
    ("power", {"alpha": 1.3}),
    ("exponential", {"sigma": 0.8}),
    ("gaussian", {"sigma": 1.3}),
]


def direct_at_scale(X: Float, base: str, semimetric: str, params: dict[str, float]) -> tuple[Float, Float]:
    """The kernel of ``X`` (any magnitude) with its terms' scale, by numpy in a scaled frame:
    ``X * 2^k`` (exact) has coordinates about 1, sigma is scaled alike, and the power kernel is
    scaled back by ``2^(-k alpha)`` (homogeneity)."""
    k = -int(np.frexp(np.max(np.abs(X - (X.mean(axis=0) if base != "origin" else 0.0))))[1])
    Xn = np.ldexp(X, k)
    kw = params_of(semimetric, params)
    back = 1.0
    if semimetric == "power":
        back = 2.0 ** (-k * params["alpha"])
    else:
        kw["sigma"] = float(np.ldexp(params["sigma"], k))
    if base == "centered":
        R = direct_semimetric(Xn, **kw)
        return direct_centered(R) * back, np.full(R.shape, np.max(np.abs(R)) * back)
    G, scale = direct_origin(Xn, **kw) if base == "origin" else direct_mean(Xn, **kw)
    return G * back, scale * back


@pytest.mark.parametrize("factor", [1e-170, 1e-300, 1e150, 1e200])
@pytest.mark.parametrize("base", ["mean", "origin", "centered"])
@pytest.mark.parametrize(
    ("semimetric", "params"),
    MAGNITUDE_CASES,
    ids=[f"{s}-{next(iter(p.values()))}" for s, p in MAGNITUDE_CASES],
)
def test_tiny_and_huge_data_are_exact(
    semimetric: str, params: dict[str, float], base: str, factor: float
) -> None:
    """Squared distances of X * 1e-170 underflow (main returned zeros: relative error 1), those
    of X * 1e200 overflow; the kernel itself is representable and is computed to 1e-12."""
    X = data(300, 4, seed=30, shift=0.5) * factor
    scaled = dict(params)
    if semimetric != "power":
        scaled["sigma"] = params["sigma"] * factor
    elif not 1e-305 < factor ** params["alpha"] < 1e305:  # entries like 1e-390: refused
        with pytest.raises(ValueError, match=r"(below the smallest normal|overflow) f64.*rescale X"):
            kgroups_rs.energy_gram(X, semimetric=semimetric, base=base, **scaled)
        return
    G = kgroups_rs.energy_gram(X, semimetric=semimetric, base=base, **scaled)
    want, scale = direct_at_scale(X, base, semimetric, scaled)
    assert np.max(np.abs(want)) > 0
    assert_close_to_scale(G, want, scale, 1e-12, f"{factor:g} {base}")
    if base != "centered":
        cross = kgroups_rs.energy_gram(X, X, semimetric=semimetric, base=base, **scaled)
        np.testing.assert_array_equal(cross, G)


@pytest.mark.parametrize("factor", [1e-170, 1e-300, 1e150, 1e200])
def test_tiny_and_huge_cross_kernel_and_bandwidth(factor: float) -> None:
    X, Y = data(40, 3, seed=31) * factor, data(90, 3, seed=32, shift=1.0) * factor
    for base in ("mean", "origin"):
        K = kgroups_rs.energy_gram(X, Y, base=base)
        stacked, scale = direct_at_scale(np.vstack([Y, X]), "origin", "power", {"alpha": 1.0})
        if base == "mean":  # base point: the mean of Y, by numpy in the scaled frame
            k = -int(np.frexp(np.max(np.abs(Y)))[1])
            Xn, Yn = np.ldexp(X, k), np.ldexp(Y, k)
            c = Yn.mean(axis=0)
            r0x, r0y = np.linalg.norm(Xn - c, axis=1), np.linalg.norm(Yn - c, axis=1)
            R = cdist(Xn, Yn)
            want = np.ldexp(0.5 * (r0x[:, None] + r0y[None, :] - R), -k)
            terms = np.ldexp(r0x[:, None] + r0y[None, :] + R, -k)
        else:
            want, terms = stacked[90:, :90], scale[90:, :90]
        assert_close_to_scale(K, want, terms, 1e-12, f"cross {factor:g} {base}")
    k = -int(np.frexp(np.max(np.abs(X)))[1])
    Xn = np.ldexp(X, k)
    direct = np.ldexp(np.sqrt(np.mean(cdist(Xn, Xn, "sqeuclidean"))), -k)
    assert kgroups_rs.bandwidth(X) == pytest.approx(direct, rel=1e-12)


def test_matrix_free_clustering_of_tiny_data() -> None:
    """kernel_kgroups_from_data sees the same exact kernel (main: all-zero kernel entries)."""
    rng = np.random.default_rng(33)
    X = np.vstack([rng.normal(size=(60, 2)), rng.normal(size=(60, 2)) + 5.0]) * 1e-170
    free = kgroups_rs.kernel_kgroups_from_data(X, 2, random_state=0)
    dense = kgroups_rs.kernel_kgroups(kgroups_rs.energy_gram(X), 2, random_state=0)
    np.testing.assert_array_equal(free.labels, dense.labels)
    assert free.objective == pytest.approx(dense.objective, rel=1e-12)
    assert len(set(free.labels[:60])) == 1 and len(set(free.labels[60:])) == 1
    assert free.labels[0] != free.labels[60]


def test_unrepresentable_kernels_are_refused() -> None:
    X = data(30, 2, seed=34)
    with pytest.raises(ValueError, match=r"below the smallest normal f64.*rescale X"):
        kgroups_rs.energy_gram(X * 1e-170, alpha=2.0)  # entries ~1e-340
    with pytest.raises(ValueError, match=r"overflow f64.*rescale X"):
        kgroups_rs.energy_gram(X * 1e200, alpha=2.0)  # entries ~1e400
    with pytest.raises(ValueError, match=r"below the smallest normal f32.*use float64 output"):
        kgroups_rs.energy_gram(X * 1e-25, alpha=2.0, dtype=np.float32)  # ~1e-50
    with pytest.raises(ValueError, match=r"overflow f32"):
        kgroups_rs.energy_gram(X * 1e20, alpha=2.0, dtype=np.float32)  # ~1e40
    with pytest.raises(ValueError, match=r"kernel entries of X are too small"):
        kgroups_rs.energy_gram(X * 1e-170, semimetric="gaussian", sigma=1.0)
    with pytest.raises(ValueError, match=r"below the smallest normal f64"):
        kgroups_rs.energy_gram(X * 1e-170, X * 1e-170, alpha=2.0)
    with pytest.raises(ValueError, match=r"below the smallest normal f64"):
        kgroups_rs.kernel_kgroups_from_data(X * 1e-170, 2, alpha=2.0)
    with pytest.raises(ValueError, match=r"invalid `sigma`: sigma = 1e300 is too large"):
        kgroups_rs.energy_gram(X * 1e-170, semimetric="exponential", sigma=1e300)
    # representable in f64: fine
    assert np.isfinite(kgroups_rs.energy_gram(X * 1e-25, alpha=2.0)).all()


# ------------------------------------------------------------ base "mean": translation invariance


@ALL_SEMIMETRICS
@pytest.mark.parametrize("c", [1e3, 1.7e9, 1e9 * np.pi])
def test_mean_base_is_translation_invariant(semimetric: str, params: dict[str, float], c: float) -> None:
    """energy_gram(X + c) == energy_gram(X) to 1e-12 of the kernel's magnitude. X is first
    replaced by (X + c) - c, so that X + c is its exact translate (rounding X + c would move
    the points by up to 1e-7 for c ~ 1e9, which no base point can undo)."""
    X = (data(200, 3, seed=35) + c) - c
    Y = X + c
    assert np.array_equal(Y - c, X)
    kw = params_of(semimetric, params)
    G = kgroups_rs.energy_gram(X, **kw)
    Gc = kgroups_rs.energy_gram(Y, **kw)
    assert np.max(np.abs(Gc - G)) <= 1e-12 * np.max(np.abs(G))
    want, scale = direct_mean(X, **kw)
    assert_close_to_scale(Gc, want, scale, 1e-12, "mean base, translated")
    # with base 0 the entries are about c in size (rho(x, 0) ~ |x| ~ c for alpha = 1)
    if semimetric == "power" and params["alpha"] == 1.0:
        assert np.abs(kgroups_rs.energy_gram(Y, base="origin", **kw)).min() > 0.5 * c


def test_clustering_far_from_the_origin() -> None:
    """Millisecond Unix timestamps (offset 1.7e12, two bursts 10 ms apart): with the mean as
    base point (the default) the kernel entries are of the size of the spread and the bursts
    are found; with base 0 the entries are ~1.7e12, yet Hartigan's tolerance follows the
    rounding of each gain, so it finds the same partition; the matrix-free clustering (base
    mean too) agrees."""
    rng = np.random.default_rng(36)
    t = np.concatenate([rng.normal(0.0, 1.0, 100), rng.normal(10.0, 1.0, 100)]) + 1.7e12
    truth = np.repeat([0, 1], 100)
    start = rng.integers(0, 2, 200)

    def accuracy(labels: Any) -> float:
        agree = float(np.mean(labels == truth))
        return max(agree, 1.0 - agree)

    origin = kgroups_rs.kernel_kgroups(kgroups_rs.energy_gram(t, base="origin"), 2, start)
    mean = kgroups_rs.kernel_kgroups(kgroups_rs.energy_gram(t), 2, start)
    assert mean.converged and mean.n_moves > 0
    assert accuracy(mean.labels) == 1.0
    np.testing.assert_array_equal(origin.labels, mean.labels)
    free = kgroups_rs.kernel_kgroups_from_data(t, 2, start)
    np.testing.assert_array_equal(free.labels, mean.labels)
    assert free.objective == pytest.approx(mean.objective, rel=1e-12)
    assert free.n_moves == mean.n_moves


def test_matrix_free_base_argument() -> None:
    X = data(150, 2, seed=37, shift=1e6)
    for base in ("mean", "origin"):
        dense = kgroups_rs.kernel_kgroups(kgroups_rs.energy_gram(X, base=base), 3, random_state=1)
        free = kgroups_rs.kernel_kgroups_from_data(X, 3, random_state=1, base=base)
        np.testing.assert_array_equal(free.labels, dense.labels)
        assert free.objective == pytest.approx(dense.objective, rel=1e-12)
    with pytest.raises(ValueError, match=r"base must be one of \('mean', 'origin'\), got 'centered'"):
        kgroups_rs.kernel_kgroups_from_data(X, 3, base="centered")
    with pytest.raises(ValueError, match=r"invalid `base`: Base::Centered is not available matrix-free"):
        kgroups_rs._core.cluster_data(
            X, "power", 1.0, None, "centered", 3, kgroups_rs._core.FitOptions(max_iter=10)
        )


# ------------------------------------------------------------------------------ out of memory


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_gram_larger_than_memory_is_a_memory_error(dtype: Any) -> None:
    """n = 10^6 points: 8 TB (4 TB in float32). main: pyo3_runtime.PanicException (not an
    Exception) from numpy's failed allocation."""
    x = np.zeros(10**6)
    message = r"out of memory for `X`: the 1000000 × 1000000 kernel matrix"
    with pytest.raises(MemoryError, match=message) as info:
        kgroups_rs.energy_gram(x, dtype=dtype)
    assert ("7.3 TiB" if dtype == np.float64 else "3.6 TiB") in str(info.value)
    # the cross kernel of 10^6 against 10^7 points: 80 TB
    with pytest.raises(MemoryError, match=r"the 1000000 × 10000000 kernel matrix of .* needs 72.8 TiB"):
        kgroups_rs.energy_gram(x, np.zeros(10**7))
    # and the module still works
    assert kgroups_rs.energy_gram(x[:3]).shape == (3, 3)


# ------------------------------------------------------------------------------------ Ctrl-C

LATENCY = 1.0  # seconds from SIGINT to KeyboardInterrupt


def _sigint_latency(call: Any, delay: float = 0.4) -> float:
    """Seconds from a real SIGINT, sent ``delay`` s into ``call``, to the KeyboardInterrupt."""
    return interrupted_after(call, send_sigint, delay)


def _seconds(call: Any) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def _wide(n: int, dim: int = 1000, seed: int = 38) -> Float:
    return np.random.default_rng(seed).normal(size=(n, dim))


def test_ctrl_c_stops_energy_gram() -> None:
    """D = 1000 (a tile of 256 x 256 pairs is 65 M multiply-adds); n calibrated so that the
    whole call takes >= 4 s. main: the interrupt was seen only when the call ended."""
    per_pair = _seconds(lambda: kgroups_rs.energy_gram(_wide(1000), dtype=np.float32)) / 1000**2
    n = int(min(12_000, max(2000, np.sqrt(4.0 / per_pair))))
    X = _wide(n)
    assert per_pair * n * n > 3.0, f"energy_gram at n = {n} would take only {per_pair * n * n:.1f} s"
    latency = _sigint_latency(lambda: kgroups_rs.energy_gram(X, dtype=np.float32))
    assert latency < LATENCY, f"KeyboardInterrupt came {latency:.2f} s after SIGINT (n = {n})"
    latency = _sigint_latency(lambda: kgroups_rs.energy_gram(X, base="centered", dtype=np.float32))
    assert latency < LATENCY, f"KeyboardInterrupt came {latency:.2f} s after SIGINT (centered)"
    assert kgroups_rs.energy_gram(X[:3]).shape == (3, 3)  # and the module still works


def test_ctrl_c_stops_the_cross_kernel() -> None:
    per_pair = _seconds(lambda: kgroups_rs.energy_gram(_wide(500), _wide(2000, seed=39))) / 1e6
    m = int(min(40_000, max(4000, 4.0 / per_pair / 2000)))
    X, Y = _wide(2000), _wide(m, seed=39)
    assert per_pair * 2000 * m > 3.0
    latency = _sigint_latency(lambda: kgroups_rs.energy_gram(X, Y, dtype=np.float32))
    assert latency < LATENCY, f"KeyboardInterrupt came {latency:.2f} s after SIGINT (m = {m})"


@pytest.mark.slow
def test_ctrl_c_stops_gram_from_semimetric() -> None:
    """The validation passes and the tiles of a large R (n = 16 000: 2 GB). The call takes only
    about a second, so the interrupt must come well before it would have ended on its own
    (main: at the end)."""
    x = np.random.default_rng(40).normal(size=16_000)
    R = np.abs(x[:, None] - x[None, :])
    took = _seconds(lambda: kgroups_rs.gram_from_semimetric(R, "centered", dtype=np.float32))
    delay = 0.2
    assert took > delay + 0.5, f"gram_from_semimetric took only {took:.1f} s: the test proves nothing"
    latency = _sigint_latency(
        lambda: kgroups_rs.gram_from_semimetric(R, "centered", dtype=np.float32), delay=delay
    )
    assert latency < min(LATENCY, 0.5 * (took - delay)), (
        f"KeyboardInterrupt came {latency:.2f} s after SIGINT (the call takes {took:.2f} s)"
    )
