//! Encodes or decodes one benchmark dataset in a loop, for profilers (callgrind, perf):
//! `cargo build --profile bench --example profile_datasets -p serde-flatbuf-lite` then
//! `valgrind --tool=callgrind target/bench/examples/profile_datasets mesh de 1`.

use serde::{Serialize, de::DeserializeOwned};
use serde_flatbuf_lite::{Options, Serializer};
use testkit::datasets::{self, log, mesh, minecraft, mk48};

fn run<T: Serialize + DeserializeOwned + PartialEq>(value: &T, opts: &Options, op: &str, n: usize) {
    let mut ser = Serializer::with_options(opts.clone());
    let bytes = ser.serialize(value).expect("encode").to_vec();
    for _ in 0..n {
        match op {
            "ser" => {
                std::hint::black_box(ser.serialize(std::hint::black_box(value)).expect("encode").len());
            }
            "de" => {
                let back: T = opts.from_slice(std::hint::black_box(&bytes)).expect("decode");
                assert!(back == *value);
            }
            "pser" => {
                std::hint::black_box(postcard::to_allocvec(std::hint::black_box(value)).expect("encode").len());
            }
            "pde" => {
                let pc = postcard::to_allocvec(value).expect("encode");
                let back: T = postcard::from_bytes(std::hint::black_box(&pc)).expect("decode");
                assert!(back == *value);
            }
            _ => panic!("op: ser, de, pser or pde"),
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (dataset, op) = (args[1].as_str(), args[2].as_str());
    let n: usize = args.get(3).map_or(1, |s| s.parse().expect("count"));
    let opts = ["Address", "Vector3", "Triangle", "Abilities", "Vector2f", "Guidance", "Transform"]
        .into_iter()
        .fold(Options::new(), Options::inline_struct);
    match dataset {
        "log-borrowed" => {
            let logs = log::generate(datasets::LOG_FULL);
            let bytes = opts.to_vec(&logs).expect("encode");
            let pc = postcard::to_allocvec(&logs).expect("encode");
            for _ in 0..n {
                let ok = match op {
                    "de" => logs.eq_borrowed(&opts.from_slice(std::hint::black_box(&bytes)).expect("decode")),
                    "pde" => logs.eq_borrowed(&postcard::from_bytes(std::hint::black_box(&pc)).expect("decode")),
                    _ => panic!("op: de or pde"),
                };
                assert!(ok);
            }
        }
        "log" => run(&log::generate(datasets::LOG_FULL), &opts, op, n),
        "mesh" => run(&mesh::generate(datasets::MESH_FULL), &opts, op, n),
        "minecraft" => run(&minecraft::generate(datasets::MINECRAFT_FULL), &opts, op, n),
        "mk48" => run(&mk48::generate(datasets::MK48_FULL), &opts, op, n),
        _ => panic!("dataset: log, mesh, minecraft or mk48"),
    }
}
