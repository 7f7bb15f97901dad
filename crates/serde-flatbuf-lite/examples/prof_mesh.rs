//! Times lite against postcard on the mesh dataset in one process (a quick look; the workspace
//! benchmark is the real measurement).
use std::time::Instant;

fn time<T>(label: &str, runs: u32, mut f: impl FnMut() -> T) {
    let t = Instant::now();
    for _ in 0..runs {
        std::hint::black_box(f());
    }
    println!("{label}: {:?}", t.elapsed() / runs);
}

fn main() {
    let mesh = testkit::datasets::mesh::generate(125_000);
    let opts = serde_flatbuf_lite::Options::new().inline_struct("Vector3").inline_struct("Triangle");
    let mut ser = serde_flatbuf_lite::Serializer::with_options(opts.clone());
    let mut buf = Vec::new();
    time("lite encode", 20, || ser.serialize(&mesh).unwrap().len());
    time("postcard encode", 20, || {
        buf.clear();
        buf = postcard::to_extend(&mesh, std::mem::take(&mut buf)).unwrap();
        buf.len()
    });
    let bytes = opts.to_vec(&mesh).unwrap();
    let pc = postcard::to_allocvec(&mesh).unwrap();
    time("lite decode", 20, || opts.from_slice::<testkit::datasets::Mesh>(&bytes).unwrap());
    time("postcard decode", 20, || postcard::from_bytes::<testkit::datasets::Mesh>(&pc).unwrap());
}
