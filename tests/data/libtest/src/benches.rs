// Benchmarks whose `--bench` output tests/data/libtest/*.txt records: a fast one, a slow one
// with b.bytes (libtest prints MB/s), one in a nested module, an ignored one and a plain test.
#![feature(test)]
extern crate test;

#[cfg(test)]
mod tests {
    use test::{black_box, Bencher};

    #[bench]
    fn add_two(b: &mut Bencher) {
        b.iter(|| black_box(2) + black_box(2));
    }

    #[bench]
    fn sort_ten_thousand(b: &mut Bencher) {
        let values: Vec<u64> = (0..10_000).map(|i| (i * 7919) % 10_007).collect();
        b.bytes = (values.len() * 8) as u64;
        b.iter(|| {
            let mut copy = values.clone();
            copy.sort_unstable();
            black_box(copy)
        });
    }

    #[bench]
    #[ignore]
    fn too_slow(b: &mut Bencher) {
        b.iter(|| black_box(1));
    }

    #[test]
    fn adds() {
        assert_eq!(2 + 2, 4);
    }

    mod strings {
        use test::{black_box, Bencher};

        #[bench]
        fn format_number(b: &mut Bencher) {
            b.iter(|| format!("{}", black_box(12_345)));
        }
    }
}
