"""Reproduce the numerical experiments of the kernel k-groups papers with kgroups_rs.

França, Rizzo & Vogelstein, "Kernel k-Groups via Hartigan's Method", IEEE TPAMI
(``../shared/papers/kernel_kgroups_tpami.txt``), and the earlier conference paper "Clustering via
Generalized Energy Statistics" (``clustering_generalized_energy_statistics.txt``). Every
experiment is regenerated from fixed seeds with the library (kernel k-groups = Hartigan, kernel
k-means = batch Lloyd on the same kernel, the exact 1-D solver) and the scikit-learn peers
(k-means, Gaussian mixture, spectral clustering), and ``RESULTS.md`` puts each number beside the
paper's.

Protocol (TPAMI §5)
-------------------
* Every method gets the same data in every trial.
* Kernel k-groups and kernel k-means run 5 starts (k-means++ in feature space unless stated)
  and keep the best objective; both are given the same seed, so the 5 initial partitions are
  identical for the two algorithms. The energy kernel has the paper's base point x0 = 0.
* k-means: scikit-learn ``KMeans`` with k-means++ and 5 starts. GMM: ``GaussianMixture`` (full
  covariances) initialised from k-means, 5 starts. Spectral clustering: ``SpectralClustering``
  with the same energy kernel as affinity (negative entries, possible for the Gaussian
  semimetric, clipped to 0), 5 k-means starts in the embedding.
* Accuracy is the paper's eq. 55 (best label permutation, :func:`kgroups_rs.clustering_accuracy`);
  the adjusted Rand index is reported beside it. Results are the mean ± the half-width of a
  95 % t-interval over the Monte Carlo trials; the number of trials is always stated.

Experiments (``--only N``), one module each
-------------------------------------------
1. ``exp1_table1``: TPAMI Table 1 / Fig. 1, 1-D normal and lognormal mixtures, n = 100 .. 2 000.
2. ``exp2_fig3a``: Fig. 3a, eq. 56 in D = 10 .. 200 (200 points).
3. ``exp3_fig3b``: Fig. 3b, eq. 57 (unequal covariances), same sweep.
4. ``exp4_fig3e``: Fig. 3e, unbalanced clusters, eq. 59, m = 0 .. 240.
5. ``exp5_table2``: Table 2, parallel cigars and concentric circles (800 points, random init).
6. ``exp6_dermatology``: Tables 3-4, the dermatology data (k = 6, rho_1/2), restarts, diagnostics.
7. ``exp7_real_data``: data bundled with scikit-learn (wine, breast cancer, digits), Hartigan vs
   Lloyd from the same initialisations.
8. ``exp8_fig3cd``: Fig. 3c-d, eq. 58 in R^20 and its lognormal version, n = 10 .. 400, kernel
   k-groups with four semimetrics against k-means, GMM and spectral clustering.
9. ``exp9_conference_table1``: the conference paper's Table 1, parallel cigars, two and three
   concentric circles, four semimetrics each.

Shared pieces: ``common`` (settings, statistics, claims, tables, methods), ``figures``,
``synthetic`` (data generators and Bayes accuracies), ``sweep`` (experiments 2-4), ``reference``
(deliberately independent numpy implementations), ``report`` (RESULTS.md), ``cli``.

Usage, from the repository root::

    python -m experiments.reproduce            # full run, writes experiments/RESULTS.md
    python -m experiments.reproduce --quick    # a few minutes, writes RESULTS-quick.md
    python -m experiments.reproduce --only 6 --out /tmp/exp

Needs numpy, scipy and scikit-learn; matplotlib for the figures (skipped without it).
"""

from .cli import EXPERIMENTS, main

__all__ = ["EXPERIMENTS", "main"]
