"""The parameter and attribute documentation that :class:`~kgroups_rs.KernelKGroups` and
:class:`~kgroups_rs.KernelKMeans` share (numpydoc sections, joined into their docstrings)."""

PARAMS_DOC = """
    n_clusters : int or "auto", default 2
        Number of clusters ``k``, ``1 <= k <= n_samples``; or ``"auto"``: chosen by
        :func:`kgroups_rs.select_k` for k = 1 ... min(10, n_samples) (the energy kernel's gap
        statistic with ``kernel="energy"``, the most stable k with ``kernel="precomputed"``,
        kernel and k together with ``kernel="auto"``; not available for the other kernels nor
        with ``sample_weight``), then the estimator fits that many clusters itself.
    kernel : {"energy", "exponential", "gaussian", "precomputed", "auto"}, default "energy"
        The semimetric of negative type generating the kernel:
        "energy" ``rho = ||x - y||**alpha``; "exponential" ``2 - 2 exp(-||x - y|| / (2 sigma))``;
        "gaussian" ``2 - 2 exp(-||x - y||**2 / (2 sigma**2))``; "precomputed": ``X`` is the
        kernel (Gram) matrix itself, and ``predict`` takes the kernel between new and
        training points.
        "auto": :func:`kgroups_rs.select_k` (``kernel="auto"``, k = 1 ... max(10,
        n_clusters), capped at n_samples) chooses between the energy kernel and the graph of
        the 10 nearest neighbours; with ``n_clusters="auto"`` it also gives k, with an int
        that many clusters are fitted with the kernel it chose. The result is ``kernel_``.
        "energy" (also when it finds one group, and for one cluster): the fit is that of
        ``kernel="energy"``, with ``predict``, ``transform`` and ``score`` as there. "knn":
        ``labels_`` are the normalised cut of the 10-NN graph (select_k's partition when it
        chose the same k, else ``graph_partition`` from a spectral start);
        ``predict`` gives each new point the majority label of its 10 nearest training
        points (a tie goes to the tied label of the nearest of them), which on the training
        points is ``labels_`` except near a boundary between clusters; ``transform`` and
        ``score`` do not exist then (no kernel defines a distance to a cluster), nor do
        ``objective_``, ``within_``, ``n_iter_`` and ``converged_``. Takes no
        ``sample_weight`` (other than all ones), ``alpha`` or ``sigma``.
    alpha : float, default 1.0
        Exponent of the "energy" kernel, ``0 < alpha <= 2`` (1 is the standard energy
        distance; 2 gives ordinary k-means). The other kernels take no alpha: with them, a
        value other than the default 1.0 raises ValueError in ``fit`` rather than being
        ignored (and a value outside that range is refused whatever the kernel, as
        scikit-learn checks every parameter).
    sigma : float, "mean", "median" or "auto", optional
        Bandwidth of the "exponential" and "gaussian" kernels: a positive number, or a rule
        computing it from the training points of positive weight. "mean" (also ``None``, the
        default): the root mean squared distance between points,
        ``sigma**2 = sum_ab w_a w_b ||x_a - x_b||**2 / (sum_a w_a)**2`` (the kernel k-groups
        paper's choice); "median": the median distance between pairs of points (pair
        ``(a, b)`` weighing ``w_a w_b``; above 2000 points, over the pairs of a fixed-seed
        sample of 2000; see :func:`kgroups_rs.bandwidth`), robust to outliers and far
        clusters; "auto": chosen among candidates by :func:`kgroups_rs.choose_sigma` on the
        training points of positive weight (unweighted), for ``n_clusters`` groups; its
        table is ``sigma_selection_``.
        The value used is ``sigma_``. Only for these two kernels: with "energy" or
        "precomputed", any sigma (a rule included) raises ValueError in ``fit`` rather than
        being ignored. The user guide's "Choosing the bandwidth" compares them.
    init : {"k-means++", "random", "spectral"} or array_like of shape (n_samples,), \
default "k-means++"
        Initial partition: feature-space k-means++, uniform random labels, the spectral
        embedding (top-k eigenvectors of ``W^1/2 G W^1/2``, rows normalised, rounded by
        k-means++; see :func:`kgroups_rs.kernel_kgroups`), or the initial labels themselves
        (then ``n_init`` must be 1).
    n_init : int, default 5
        Independent starts, run in parallel; the best objective wins. The functions such
        as :func:`kgroups_rs.kernel_kgroups` default to 1 (see Notes).
    max_iter : int, default 300
        Maximum number of sweeps (iterations) per start.
    random_state : None, int >= 0, numpy Generator or RandomState
        Seed of the initialisations. ``None`` draws from numpy's global random state, as in
        scikit-learn. The same seed gives the same result for any number of threads.
    n_threads : int, optional
        Threads for building the kernel and for the starts. ``None`` or -1: all cores
        (default); -2, -3, ...: all cores but 1, 2, ... (joblib's convention,
        ``n_cores + 1 + n_threads``); 0 and values leaving no thread are refused.
    kernel_storage : {"auto", "dense", "matrix-free"}, default "auto"
        How ``fit`` holds the training kernel (not for ``kernel="precomputed"``): "dense"
        builds the n x n matrix (8 n^2 bytes; fastest with several starts, as it is reused);
        "matrix-free" never stores it and recomputes kernel rows from the data when needed
        (:func:`kgroups_rs.kernel_kgroups_from_data`: memory O(n D + n k), the same result for
        the same start; fastest for one start on few features); "auto" is matrix-free above
        ``DENSE_KERNEL_MAX_BYTES`` = 2 GiB (n > 16 384) and, to save time, for a single
        Hartigan start (``n_init=1``) on at most ``MATRIX_FREE_MAX_DIM`` = 32 features;
        dense otherwise. The choice made is ``kernel_storage_``."""

ATTRIBUTES_DOC = """
    Attributes
    ----------
    n_clusters_ : int
        The number of clusters fitted (``n_clusters``, or the one chosen for ``"auto"``).
    kernel_ : str
        The kernel fitted: ``kernel``, or for ``kernel="auto"`` the one chosen, "energy" or
        "knn".
    selection_ : SelectionResult or None
        With ``n_clusters="auto"`` or ``kernel="auto"``: :func:`kgroups_rs.select_k`'s result
        (its per-k table in ``selection_.table``); None otherwise.
    labels_ : ndarray of int64, shape (n_samples,)
        Cluster of each training point, ``0 .. n_clusters - 1``.
    objective_ : float
        The maximised objective ``Q = sum_j Q_j / s_j``, with
        ``Q_j = sum_{a, b in C_j} w_a w_b K(x_a, x_b)`` and ``s_j = sum_{a in C_j} w_a``.
    within_ : float
        The energy within-cluster dispersion ``W = sum_i w_i K(x_i, x_i) - Q`` (minimised).
    n_iter_ : int
        Sweeps (iterations) of the best start.
    converged_ : bool
        Whether the best start converged before ``max_iter``.
    cluster_weights_ : ndarray of float64, shape (n_clusters,)
        Total sample weight ``s_l`` of the points of each cluster, the weighted cluster size
        (equal to ``cluster_sizes_`` for unit weights).
    cluster_sizes_ : ndarray of int64, shape (n_clusters,)
        Number of training points in each cluster, ``bincount(labels_)`` (points of weight
        0 counted in the cluster :meth:`predict` gives them).
    mean_ : ndarray of float64, shape (n_features,)
        The weighted mean of the training data, subtracted before building kernels (not set
        for ``kernel="precomputed"``).
    sigma_ : float
        The bandwidth used (only for the "exponential" and "gaussian" kernels).
    sigma_selection_ : SigmaSelection or None
        With ``sigma="auto"``, the :func:`kgroups_rs.choose_sigma` result (its ``table`` holds
        every candidate); None otherwise (only for the "exponential" and "gaussian" kernels).
    kernel_storage_ : str
        "dense" or "matrix-free": how ``fit`` held the training kernel.
    n_features_in_ : int
        Number of features seen in ``fit`` (``n_samples`` for "precomputed").
    feature_names_in_ : ndarray of str
        Feature names, when ``X`` has string column names.

    Notes
    -----
    Convergence: when the best start stopped at ``max_iter`` sweeps, or found fewer
    distinct clusters than ``n_clusters``, ``fit`` issues a warning that is both
    scikit-learn's ``sklearn.exceptions.ConvergenceWarning`` and
    :class:`kgroups_rs.ConvergenceWarning`.

    Why ``n_init=5`` here and 1 in the functions (a deliberate difference): the functions
    are the building blocks (one start, at a cost the caller sees and composes, and
    ``kernel_kgroups(G, k, n_init=5)`` is one argument away); the estimators are the
    convenience layer, used as scikit-learn's ``KMeans`` is, which ran 10 starts by default
    (until 1.4).
    Hartigan's and Lloyd's methods stop at a local optimum that depends on the seeding, and
    the best of several starts guards against a poor one; the starts share the training
    kernel, whose construction is half or more of the cost of a fit, and run in parallel.
    Measured on two overlapping Gaussian blobs (n = 4000, D = 10, k = 5, two cores): the
    kernel took 1.15 s, one start 0.37 s, five starts 0.98 s, and one start ended below the
    best of five for 17 of 20 seeds."""
