r"""
How many groups, with which kernel
==================================

:func:`kgroups_rs.select_k` chooses the number of groups k *and* the kernel from the data
alone. It first asks the energy kernel (:math:`\rho(x, y) = \|x - y\|`, no scale to tune)
through a gap statistic: the energy within-cluster dispersion :math:`W_k` of kernel
k-groups' partition against its expectation on uniform reference data. If the energy kernel
sees no structure but a self-tuning (locally scaled) kernel does — curved or nested groups —
it partitions the k-nearest-neighbour graph by normalised cut, with k at the largest
relative eigen-gap. If neither kernel sees structure, the answer is one group.

This example runs it on five data sets: blobs whose number we pretend not to know, two
concentric circles, two moons, a two-group lognormal mixture in one dimension, and uniform
noise. The true labels are used only to score the result.
"""

# %%
# The five data sets
# ------------------
import kgroups_rs
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_blobs, make_circles, make_moons
from sklearn.metrics import adjusted_rand_score

rng = np.random.default_rng(0)
blobs, blobs_y = make_blobs(n_samples=400, centers=5, cluster_std=0.8, random_state=3)
circles, circles_y = make_circles(n_samples=400, noise=0.05, factor=0.5, random_state=0)
moons, moons_y = make_moons(n_samples=400, noise=0.06, random_state=0)
lognormal_y = np.repeat([0, 1], 200)
lognormal = np.concatenate([rng.lognormal(0.0, 0.3, 200), rng.lognormal(1.5, 0.3, 200)])[:, None]
noise, noise_y = rng.uniform(size=(400, 2)), np.zeros(400, dtype=int)

data = {
    "blobs (k = 5)": (blobs, blobs_y),
    "circles (k = 2)": (circles, circles_y),
    "moons (k = 2)": (moons, moons_y),
    "lognormal 1-D (k = 2)": (lognormal, lognormal_y),
    "uniform (k = 1)": (noise, noise_y),
}

# %%
# Choose k and the kernel
# -----------------------
# One call per data set; ``random_state`` seeds every reference set, subsample and start, so
# the answer is the same on any number of threads.
results = {name: kgroups_rs.select_k(X, range(1, 11), random_state=0) for name, (X, _) in data.items()}
for name, result in results.items():
    y = data[name][1]
    print(
        f"{name:24s} k = {result.k:2d}  kernel = {str(result.kernel):6s}  rule = {result.rule:22s}"
        f"  ARI = {adjusted_rand_score(y, result.labels):.2f}"
    )

# %%
# The partitions
# --------------
fig, axes = plt.subplots(1, 5, figsize=(16, 3.4))
for ax, (name, result) in zip(axes, results.items()):
    X = data[name][0]
    xy = X if X.shape[1] == 2 else np.column_stack([X[:, 0], rng.uniform(-1, 1, len(X))])
    ax.scatter(xy[:, 0], xy[:, 1], c=result.labels, s=6, cmap="tab10")
    ax.set_title(f"{name}\nk = {result.k}, kernel = {result.kernel}", fontsize=9)
    ax.set_xticks([])
    ax.set_yticks([])
fig.tight_layout()

# %%
# The table behind one answer
# ---------------------------
# For the blobs, the gap statistic on the principal-component box: Tibshirani's rule takes
# the smallest k with :math:`\mathrm{Gap}(k) \ge \mathrm{Gap}(k+1) - s_{k+1}`.
table = results["blobs (k = 5)"].table
fig, ax = plt.subplots(figsize=(5, 3.2))
ax.errorbar(table["k"], table["gap_pc"], yerr=table["se_pc"], marker="o", capsize=3)
ax.axvline(results["blobs (k = 5)"].k, color="grey", linestyle=":")
ax.set_xlabel("k")
ax.set_ylabel("Gap(k)")
ax.set_title("Energy-kernel gap statistic, blobs")
fig.tight_layout()

# %%
# Where it fails
# ---------------
# Here the lognormal groups are far apart. When two skewed groups overlap more (the
# ``lognormal_1d`` set of ``benches/bench_select_k.py``), splitting them lowers :math:`W` no
# more than splitting uniform reference data does, and the answer is one group; with k
# known, :func:`kgroups_rs.kgroups_1d` finds the exact optimum. The benchmark lists every
# data set where the rule misses, beside five other ways to choose k.
