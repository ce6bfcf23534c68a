//! Known answers: the exact random stream and seeded clustering results.
//!
//! Seeded results are promised identical across versions and thread counts. These values
//! were computed once and written here as literals: a change to any of them changes what
//! users' seeded runs return, so it is a BREAKING CHANGE — never update them to make a test
//! pass without saying so in the changelog (and versioning the release accordingly).

use kgroups::init::random_labels;
use kgroups::rng::{derive_seeds, Rng};
use kgroups::{fit, Algorithm, Control, DenseKernel, Init, Options};

/// The first outputs of the generator for one seed.
struct Stream {
    seed: u64,
    next_u64: [u64; 4],
    next_f64: [f64; 2],
    below_10: [usize; 6],
    distinct_10_4: [usize; 4],
    random_labels_12_3: [usize; 12],
    derive_seeds: [u64; 3],
    weighted_index: [usize; 6],
}

fn streams() -> Vec<Stream> {
    vec![
        Stream {
            seed: 0,
            next_u64: [
                11091344671253066420,
                13793997310169335082,
                1900383378846508768,
                7684712102626143532,
            ],
            next_f64: [0.6012629994179048, 0.7477740925472398],
            below_10: [6, 7, 1, 4, 7, 9],
            distinct_10_4: [6, 7, 2, 5],
            random_labels_12_3: [1, 0, 0, 1, 2, 2, 2, 1, 1, 2, 0, 0],
            derive_seeds: [
                16294208416658607535,
                7960286522194355700,
                487617019471545679,
            ],
            weighted_index: [2, 3, 0, 2, 3, 3],
        },
        Stream {
            seed: 1,
            next_u64: [
                12966619160104079557,
                9600361134598540522,
                10590380919521690900,
                7218738570589545383,
            ],
            next_f64: [0.7029218331588505, 0.5204366199388569],
            below_10: [7, 5, 5, 3, 6, 1],
            distinct_10_4: [7, 5, 6, 1],
            random_labels_12_3: [2, 1, 1, 1, 2, 0, 0, 2, 1, 1, 2, 0],
            derive_seeds: [
                10451216379200822465,
                13757245211066428519,
                17911839290282890590,
            ],
            weighted_index: [2, 2, 2, 2, 2, 2],
        },
        Stream {
            seed: 42,
            next_u64: [
                1546998764402558742,
                6990951692964543102,
                12544586762248559009,
                17057574109182124193,
            ],
            next_f64: [0.08386297105988216, 0.3789802506626686],
            below_10: [0, 3, 6, 9, 9, 7],
            distinct_10_4: [0, 4, 7, 9],
            random_labels_12_3: [2, 1, 2, 2, 1, 2, 2, 2, 2, 0, 2, 0],
            derive_seeds: [
                13679457532755275413,
                2949826092126892291,
                5139283748462763858,
            ],
            weighted_index: [0, 2, 2, 3, 3, 3],
        },
        Stream {
            seed: u64::MAX,
            next_u64: [
                10328197420357168392,
                14156678507024973869,
                9357971779955476126,
                13791585006304312367,
            ],
            next_f64: [0.5598927040505212, 0.7674350796247662],
            below_10: [5, 7, 5, 7, 5, 7],
            distinct_10_4: [5, 7, 6, 8],
            random_labels_12_3: [1, 2, 1, 2, 1, 0, 1, 2, 1, 1, 0, 0],
            derive_seeds: [
                16490336266968443936,
                16834447057089888969,
                4048727598324417001,
            ],
            weighted_index: [2, 3, 2, 3, 2, 3],
        },
    ]
}

#[test]
fn the_random_stream_is_pinned() {
    for s in streams() {
        let seed = s.seed;
        let mut rng = Rng::new(seed);
        let next_u64: Vec<u64> = (0..4).map(|_| rng.next_u64()).collect();
        assert_eq!(next_u64, s.next_u64, "next_u64, seed {seed}");
        let mut rng = Rng::new(seed);
        let next_f64: Vec<f64> = (0..2).map(|_| rng.next_f64()).collect();
        assert_eq!(next_f64, s.next_f64, "next_f64, seed {seed}");
        let mut rng = Rng::new(seed);
        let below: Vec<Option<usize>> = (0..6).map(|_| rng.below(10)).collect();
        let expected: Vec<Option<usize>> = s.below_10.iter().map(|&b| Some(b)).collect();
        assert_eq!(below, expected, "below(10), seed {seed}");
        assert_eq!(
            Rng::new(seed).distinct(10, 4),
            Some(s.distinct_10_4.to_vec()),
            "distinct(10, 4), seed {seed}"
        );
        assert_eq!(
            random_labels(12, 3, &mut Rng::new(seed)).ok(),
            Some(s.random_labels_12_3.to_vec()),
            "random_labels(12, 3), seed {seed}"
        );
        assert_eq!(
            derive_seeds(seed, 3),
            s.derive_seeds,
            "derive_seeds, seed {seed}"
        );
        let mut rng = Rng::new(seed);
        let weighted: Vec<Option<usize>> = (0..6)
            .map(|_| rng.weighted_index(&[0.5, 0.0, 2.0, 1.0]))
            .collect();
        let expected: Vec<Option<usize>> = s.weighted_index.iter().map(|&i| Some(i)).collect();
        assert_eq!(weighted, expected, "weighted_index, seed {seed}");
    }
}

const N: usize = 15;

/// The linear kernel of 15 points with small integer coordinates: every entry is an exact
/// integer, so the kernel is the same on every machine.
fn kernel_matrix() -> Vec<f64> {
    let points: Vec<(f64, f64)> = (0..N)
        .map(|i| (((i * 37) % 11) as f64 - 5.0, ((i * 53) % 13) as f64 - 6.0))
        .collect();
    points
        .iter()
        .flat_map(|a| points.iter().map(move |b| a.0 * b.0 + a.1 * b.1))
        .collect()
}

/// Point weights of the weighted cases: 1, 1.5, 2, 2.5, 1, 1.5, ...
fn weights() -> Vec<f64> {
    (0..N).map(|i| 1.0 + (i % 4) as f64 * 0.5).collect()
}

/// One seeded run (k = 3, n_init = 6, max_iter = 300) and its result.
struct Case {
    algorithm: Algorithm,
    init: Init<'static>,
    weighted: bool,
    seed: u64,
    labels: [usize; N],
    objective: f64,
    best_start: usize,
    n_iter: usize,
    n_moves: usize,
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            algorithm: Algorithm::Hartigan,
            init: Init::KMeansPlusPlus,
            weighted: false,
            seed: 7,
            labels: [2, 2, 0, 2, 0, 0, 1, 0, 0, 1, 1, 1, 1, 0, 2],
            objective: 2.7958333333333337e2,
            best_start: 5,
            n_iter: 4,
            n_moves: 6,
        },
        Case {
            algorithm: Algorithm::Hartigan,
            init: Init::KMeansPlusPlus,
            weighted: false,
            seed: 2024,
            labels: [2, 2, 1, 2, 1, 1, 0, 1, 1, 0, 0, 0, 0, 1, 2],
            objective: 2.7958333333333337e2,
            best_start: 2,
            n_iter: 3,
            n_moves: 4,
        },
        Case {
            algorithm: Algorithm::Hartigan,
            init: Init::KMeansPlusPlus,
            weighted: true,
            seed: 7,
            labels: [1, 1, 0, 1, 0, 0, 2, 2, 0, 2, 2, 2, 2, 0, 1],
            objective: 4.578121118012422e2,
            best_start: 0,
            n_iter: 3,
            n_moves: 4,
        },
        Case {
            algorithm: Algorithm::Hartigan,
            init: Init::KMeansPlusPlus,
            weighted: true,
            seed: 2024,
            labels: [1, 1, 2, 1, 2, 2, 0, 0, 2, 0, 0, 0, 0, 2, 1],
            objective: 4.578121118012422e2,
            best_start: 3,
            n_iter: 2,
            n_moves: 2,
        },
        Case {
            algorithm: Algorithm::Hartigan,
            init: Init::Random,
            weighted: false,
            seed: 7,
            labels: [2, 2, 0, 2, 0, 0, 1, 0, 0, 1, 1, 1, 1, 0, 2],
            objective: 2.7958333333333337e2,
            best_start: 4,
            n_iter: 3,
            n_moves: 10,
        },
        Case {
            algorithm: Algorithm::Hartigan,
            init: Init::Random,
            weighted: false,
            seed: 2024,
            labels: [0, 0, 1, 0, 1, 1, 2, 1, 1, 2, 2, 2, 2, 1, 0],
            objective: 2.7958333333333337e2,
            best_start: 1,
            n_iter: 4,
            n_moves: 10,
        },
        Case {
            algorithm: Algorithm::Hartigan,
            init: Init::Random,
            weighted: true,
            seed: 7,
            labels: [0, 0, 2, 0, 2, 2, 1, 1, 2, 1, 1, 1, 1, 2, 0],
            objective: 4.578121118012422e2,
            best_start: 0,
            n_iter: 3,
            n_moves: 12,
        },
        Case {
            algorithm: Algorithm::Hartigan,
            init: Init::Random,
            weighted: true,
            seed: 2024,
            labels: [0, 0, 2, 0, 2, 2, 1, 1, 2, 1, 1, 1, 1, 2, 0],
            objective: 4.578121118012422e2,
            best_start: 0,
            n_iter: 3,
            n_moves: 11,
        },
        Case {
            algorithm: Algorithm::Lloyd,
            init: Init::KMeansPlusPlus,
            weighted: false,
            seed: 7,
            labels: [0, 0, 2, 0, 0, 2, 0, 2, 2, 1, 1, 1, 1, 2, 0],
            objective: 2.756666666666667e2,
            best_start: 1,
            n_iter: 2,
            n_moves: 2,
        },
        Case {
            algorithm: Algorithm::Lloyd,
            init: Init::KMeansPlusPlus,
            weighted: false,
            seed: 2024,
            labels: [2, 2, 1, 2, 1, 1, 0, 1, 1, 0, 0, 0, 0, 1, 2],
            objective: 2.7958333333333337e2,
            best_start: 5,
            n_iter: 2,
            n_moves: 1,
        },
        Case {
            algorithm: Algorithm::Lloyd,
            init: Init::KMeansPlusPlus,
            weighted: true,
            seed: 7,
            labels: [1, 1, 0, 1, 0, 0, 1, 0, 0, 2, 2, 2, 2, 0, 1],
            objective: 4.5732497911445284e2,
            best_start: 0,
            n_iter: 2,
            n_moves: 2,
        },
        Case {
            algorithm: Algorithm::Lloyd,
            init: Init::KMeansPlusPlus,
            weighted: true,
            seed: 2024,
            labels: [1, 1, 2, 1, 2, 2, 1, 0, 0, 0, 0, 0, 0, 2, 1],
            objective: 4.4796031746031747e2,
            best_start: 3,
            n_iter: 1,
            n_moves: 0,
        },
        Case {
            algorithm: Algorithm::Lloyd,
            init: Init::Random,
            weighted: false,
            seed: 7,
            labels: [0, 0, 2, 0, 0, 2, 1, 1, 2, 1, 1, 1, 1, 2, 0],
            objective: 2.7473333333333335e2,
            best_start: 1,
            n_iter: 2,
            n_moves: 7,
        },
        Case {
            algorithm: Algorithm::Lloyd,
            init: Init::Random,
            weighted: false,
            seed: 2024,
            labels: [1, 1, 0, 1, 0, 0, 2, 2, 2, 2, 2, 2, 2, 0, 1],
            objective: 2.707857142857143e2,
            best_start: 2,
            n_iter: 2,
            n_moves: 10,
        },
        Case {
            algorithm: Algorithm::Lloyd,
            init: Init::Random,
            weighted: true,
            seed: 7,
            labels: [0, 0, 2, 0, 2, 2, 1, 2, 2, 1, 1, 1, 1, 2, 0],
            objective: 4.5542021720969086e2,
            best_start: 1,
            n_iter: 3,
            n_moves: 8,
        },
        Case {
            algorithm: Algorithm::Lloyd,
            init: Init::Random,
            weighted: true,
            seed: 2024,
            labels: [1, 1, 0, 1, 0, 0, 2, 2, 0, 2, 2, 2, 2, 0, 1],
            objective: 4.578121118012422e2,
            best_start: 2,
            n_iter: 3,
            n_moves: 11,
        },
        Case {
            algorithm: Algorithm::LloydOnline,
            init: Init::KMeansPlusPlus,
            weighted: false,
            seed: 7,
            labels: [1, 1, 2, 1, 2, 2, 1, 0, 0, 0, 0, 0, 0, 2, 1],
            objective: 2.7075e2,
            best_start: 4,
            n_iter: 1,
            n_moves: 0,
        },
        Case {
            algorithm: Algorithm::LloydOnline,
            init: Init::KMeansPlusPlus,
            weighted: false,
            seed: 2024,
            labels: [2, 2, 1, 2, 1, 1, 0, 1, 1, 0, 0, 0, 0, 1, 2],
            objective: 2.7958333333333337e2,
            best_start: 5,
            n_iter: 2,
            n_moves: 1,
        },
        Case {
            algorithm: Algorithm::LloydOnline,
            init: Init::KMeansPlusPlus,
            weighted: true,
            seed: 7,
            labels: [1, 1, 0, 1, 0, 0, 1, 0, 0, 2, 2, 2, 2, 0, 1],
            objective: 4.5732497911445284e2,
            best_start: 0,
            n_iter: 2,
            n_moves: 2,
        },
        Case {
            algorithm: Algorithm::LloydOnline,
            init: Init::KMeansPlusPlus,
            weighted: true,
            seed: 2024,
            labels: [1, 1, 2, 1, 2, 2, 1, 0, 0, 0, 0, 0, 0, 2, 1],
            objective: 4.4796031746031747e2,
            best_start: 3,
            n_iter: 1,
            n_moves: 0,
        },
        Case {
            algorithm: Algorithm::LloydOnline,
            init: Init::Random,
            weighted: false,
            seed: 7,
            labels: [0, 0, 2, 0, 2, 2, 1, 1, 2, 1, 1, 1, 1, 2, 0],
            objective: 2.792833333333333e2,
            best_start: 1,
            n_iter: 2,
            n_moves: 7,
        },
        Case {
            algorithm: Algorithm::LloydOnline,
            init: Init::Random,
            weighted: false,
            seed: 2024,
            labels: [0, 0, 1, 0, 1, 1, 0, 1, 1, 2, 2, 2, 2, 1, 0],
            objective: 2.7933333333333337e2,
            best_start: 1,
            n_iter: 2,
            n_moves: 6,
        },
        Case {
            algorithm: Algorithm::LloydOnline,
            init: Init::Random,
            weighted: true,
            seed: 7,
            labels: [2, 2, 0, 2, 0, 0, 2, 1, 0, 1, 1, 1, 1, 0, 2],
            objective: 4.5372535505430244e2,
            best_start: 4,
            n_iter: 2,
            n_moves: 6,
        },
        Case {
            algorithm: Algorithm::LloydOnline,
            init: Init::Random,
            weighted: true,
            seed: 2024,
            labels: [0, 0, 1, 0, 1, 1, 0, 1, 1, 2, 2, 2, 2, 1, 0],
            objective: 4.5732497911445284e2,
            best_start: 1,
            n_iter: 2,
            n_moves: 6,
        },
    ]
}

#[test]
fn seeded_fits_are_pinned_for_any_number_of_threads() {
    let g = kernel_matrix();
    let kernel = DenseKernel::new(&g, N).unwrap();
    let w = weights();
    for threads in [1, 3] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        for case in cases() {
            let options = Options {
                algorithm: case.algorithm,
                init: case.init,
                weights: case.weighted.then_some(&w[..]),
                n_init: 6,
                max_iter: 300,
                seed: case.seed,
                shift: 0.0,
            };
            let what = format!(
                "{:?} {:?} weighted = {} seed = {} on {threads} threads",
                case.algorithm, case.init, case.weighted, case.seed
            );
            let r = pool
                .install(|| fit(&kernel, 3, &options, &Control::new()))
                .unwrap();
            assert_eq!(r.labels, case.labels, "labels, {what}");
            assert!(
                (r.objective - case.objective).abs() <= 1e-12 * case.objective.abs(),
                "objective {} != {}, {what}",
                r.objective,
                case.objective
            );
            assert_eq!(r.best_start, case.best_start, "best_start, {what}");
            assert_eq!(r.n_iter, case.n_iter, "n_iter, {what}");
            assert_eq!(r.n_moves, case.n_moves, "n_moves, {what}");
        }
    }
}
