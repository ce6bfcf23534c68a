r"""
Large n: matrix-free and Nyström
================================

A dense kernel matrix takes :math:`8 n^2` bytes — 3.2 GB at n = 20 000, 80 GB at
n = 100 000. Two paths avoid it (user guide, *Which path for which size*):

* :func:`kgroups_rs.kernel_kgroups_from_data` computes kernel rows from the data when needed.
  It is **exact**: the same labels and objective as the dense path for the same start, with
  memory :math:`O(nD + nk)`; its time grows as :math:`n^2`.
* :func:`kgroups_rs.kernel_kgroups_nystrom` clusters a rank-m approximation of the kernel
  (m landmark points), in time and memory linear in n.

The sizes here are kept small so the example runs in seconds; raise ``n_exact`` and
``n_large`` to see the scaling.
"""

# %%
# Data: a mixture of 10 Gaussians in 10 dimensions
# ------------------------------------------------
# Component j is centred at 4 e_j (e_j the j-th unit vector), so every two means are
# 4√2 ≈ 5.7 apart and neighbouring components overlap a little.
import time

import kgroups_rs
import matplotlib.pyplot as plt
import numpy as np
from sklearn.metrics import adjusted_rand_score


def mixture(n, seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 10, size=n)
    X = rng.normal(size=(n, 10))
    X[np.arange(n), y] += 4.0
    return X, y


k = 10
n_exact = 5_000
X, y = mixture(n_exact, seed=0)

# %%
# Exact: dense against matrix-free
# --------------------------------
# From the same seed both paths make the same starts (best of 3) and end with the same result.
# ``check_symmetry=False`` skips the O(n²) symmetry check, safe for a matrix that
# :func:`kgroups_rs.energy_gram` built (it is symmetric by construction).
start = time.perf_counter()
G = kgroups_rs.energy_gram(X)
dense = kgroups_rs.kernel_kgroups(G, k, n_init=3, random_state=0, check_symmetry=False)
t_dense = time.perf_counter() - start
del G

start = time.perf_counter()
free = kgroups_rs.kernel_kgroups_from_data(X, k, n_init=3, random_state=0)
t_free = time.perf_counter() - start

print(f"dense:       {t_dense:5.2f} s, W = {dense.within:.6f}, "
      f"kernel {8 * n_exact**2 / 1e6:.0f} MB")
print(f"matrix-free: {t_free:5.2f} s, W = {free.within:.6f}")
print("identical labels:", bool(np.array_equal(dense.labels, free.labels)))

# %%
# Nyström: accuracy against the number of landmarks
# -------------------------------------------------
# On the same data (best of 3 starts each), the labels of the approximate method against the
# truth, and the exact W of the approximate labels (:func:`kgroups_rs.within_dispersion` computes W from the
# data without storing the kernel).
rows = []
for m in (20, 40, 80, 160):
    start = time.perf_counter()
    approx = kgroups_rs.kernel_kgroups_nystrom(X, k, n_components=m, n_init=3, random_state=0)
    seconds = time.perf_counter() - start
    w_exact = kgroups_rs.within_dispersion(approx.labels, X=X)
    rows.append((m, seconds, adjusted_rand_score(y, approx.labels), w_exact / free.within - 1))
    print(f"m = {m:4d}: {seconds:5.2f} s, ARI vs truth {rows[-1][2]:.4f}, "
          f"W / W_exact - 1 = {rows[-1][3]:+.2e}")
print(f"exact:      ARI vs truth {adjusted_rand_score(y, free.labels):.4f}")

ms, _, aris, excess = map(np.array, zip(*rows))
fig, axes = plt.subplots(1, 2, figsize=(8, 3.5))
axes[0].plot(ms, aris, "o-", label="Nyström")
axes[0].axhline(adjusted_rand_score(y, free.labels), color="k", linestyle="--", label="exact")
axes[0].set_xlabel("landmarks m")
axes[0].set_ylabel("ARI against the components")
axes[0].legend()
axes[1].plot(ms, np.maximum(excess, 1e-12), "o-")
axes[1].set_yscale("log")
axes[1].set_xlabel("landmarks m")
axes[1].set_ylabel("relative excess of W")
for ax in axes:
    ax.set_xscale("log", base=2)
fig.tight_layout()

# %%
# A local search can also end *below* the exact method's W from another start, so the
# excess is only a guide; what matters is that it shrinks as m grows. m ≥ 10 k is a
# sensible floor.

# %%
# Many more points
# ----------------
# The Nyström path at a size where the dense kernel would need 20 GB. Its time is linear in
# n (the benchmark in ``benches/bench_large.py`` runs n = 1 000 000 with m = 256).
n_large = 50_000
X_large, y_large = mixture(n_large, seed=1)
start = time.perf_counter()
big = kgroups_rs.kernel_kgroups_nystrom(X_large, k, n_components=128, random_state=0)
seconds = time.perf_counter() - start
print(f"n = {n_large}, m = 128: {seconds:.2f} s, {big.n_iter} sweeps, "
      f"ARI {adjusted_rand_score(y_large, big.labels):.4f}, approximate={big.approximate}")
plt.show()
