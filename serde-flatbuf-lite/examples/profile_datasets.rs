//! Encodes or decodes one benchmark dataset in a loop, for profilers (callgrind, perf):
//! `cargo build --profile bench --example profile_datasets -p serde-flatbuf-lite` then
//! `valgrind --tool=callgrind target/bench/examples/profile_datasets mesh de 1`.

use serde::{Serialize, de::DeserializeOwned};
use serde_flatbuf_lite::{Options, Serializer};
use testkit::datasets::{self, log, mesh, minecraft, mk48};

fn run<T: Serialize + DeserializeOwned + PartialEq>(value: &T, opts: &Options, op: &str, n: usize) {
    let mut ser = Serializer::with_options(opts.clone());
    let bytes = ser.serialize(value).expect("encode").to_vec();
    let pc = postcard::to_allocvec(value).expect("encode");
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
        "mesh-official" => {
            // The official builder with flatc-generated code, for instruction-count ratios (op: ser).
            use flatbuf_oracle::mesh::bench::mesh as fm;
            let m = mesh::generate(datasets::MESH_FULL);
            let v3 = |v: &mesh::Vector3| fm::Vector3::new(v.x, v.y, v.z);
            let mut b = flatbuf_oracle::flatbuffers::FlatBufferBuilder::with_capacity(1 << 20);
            for _ in 0..n {
                b.reset();
                b.start_vector::<fm::Triangle>(m.triangles.len());
                for t in std::hint::black_box(&m).triangles.iter().rev() {
                    b.push(fm::Triangle::new(&v3(&t.v0), &v3(&t.v1), &v3(&t.v2), &v3(&t.normal)));
                }
                let tris = b.end_vector(m.triangles.len());
                let root = fm::Mesh::create(&mut b, &fm::MeshArgs { triangles: Some(tris) });
                b.finish(root, None);
                std::hint::black_box(b.finished_data().len());
            }
        }
        "mesh" => run(&mesh::generate(datasets::MESH_FULL), &opts, op, n),
        "minecraft" => run(&minecraft::generate(datasets::MINECRAFT_FULL), &opts, op, n),
        "mk48" => run(&mk48::generate(datasets::MK48_FULL), &opts, op, n),
        _ => panic!("dataset: log, log-borrowed, mesh, mesh-official, minecraft or mk48"),
    }
}
