//! The README's Rust example is `examples/readme.rs` word for word, so the program users paste
//! into `src/main.rs` is the one cargo builds (`cargo test` builds the examples;
//! `cargo run --example readme` runs it), and the README's doctest runs it as well.

const README: &str = include_str!("../../README.md");
const EXAMPLE: &str = include_str!("../../examples/readme.rs");

/// The body of the README's only ```rust block.
fn readme_rust_block() -> &'static str {
    let fence = "```rust\n";
    let start = README.find(fence).expect("README has a ```rust block") + fence.len();
    assert!(
        README[start..].find(fence).is_none(),
        "README has more than one ```rust block; this test checks the first only"
    );
    let end = start + README[start..].find("```\n").expect("the block is closed");
    &README[start..end]
}

#[test]
fn readme_block_is_the_example_program() {
    assert_eq!(
        readme_rust_block(),
        EXAMPLE,
        "README.md's Rust block and examples/readme.rs differ: copy one onto the other"
    );
    assert!(
        EXAMPLE.contains("fn main()"),
        "the example must be a complete program"
    );
    assert!(
        !EXAMPLE.contains("\n# "),
        "no doctest-only hidden lines in a program to paste"
    );
}
