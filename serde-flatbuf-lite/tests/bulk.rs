//! Vectors of packed inline elements (written and read in bulk after the first element): the bytes are the
//! same as the general element-by-element path, the official builder's mesh buffer reads back, and elements
//! that change shape, lying length hints and padded structs take the general path.

use flatbuf_oracle::flatbuffers::{self, FlatBufferBuilder};
use flatbuf_oracle::mesh::bench::mesh as fm;
use serde::ser::SerializeSeq;
use serde::{Deserialize, Serialize, Serializer};
use serde_flatbuf_lite::Options;

#[derive(Serialize, Deserialize, PartialEq, Debug, Clone, Copy)]
struct Vector3 {
    x: f32,
    y: f32,
    z: f32,
}

#[derive(Serialize, Deserialize, PartialEq, Debug, Clone, Copy)]
struct Triangle {
    v0: Vector3,
    v1: Vector3,
    v2: Vector3,
    normal: Vector3,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Mesh {
    triangles: Vec<Triangle>,
}

/// The same vector serialized without a length hint: the general path, element by element.
#[derive(Serialize, PartialEq, Debug)]
struct MeshNoHint {
    #[serde(serialize_with = "no_hint")]
    triangles: Vec<Triangle>,
}

fn no_hint<T: Serialize, S: Serializer>(items: &[T], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(items.iter().filter(|_| true))
}

fn opts() -> Options {
    Options::new().inline_struct("Vector3").inline_struct("Triangle")
}

fn v(i: usize) -> Vector3 {
    Vector3 { x: i as f32, y: -(i as f32) * 0.5, z: 1.0 / (i as f32 + 1.0) }
}

fn mesh(n: usize) -> Mesh {
    Mesh { triangles: (0..n).map(|i| Triangle { v0: v(i), v1: v(i + 1), v2: v(i + 2), normal: v(i * 7) }).collect() }
}

#[test]
fn bulk_bytes_equal_the_general_path_and_round_trip() {
    let opts = opts();
    for n in [0, 1, 2, 3, 17, 1000] {
        let m = mesh(n);
        let bulk = opts.to_vec(&m).unwrap();
        let general = opts.to_vec(&MeshNoHint { triangles: m.triangles.clone() }).unwrap();
        assert_eq!(bulk, general, "{n} triangles");
        assert_eq!(opts.from_slice::<Mesh>(&bulk).unwrap(), m);
    }
}

#[test]
fn official_mesh_reads_and_lite_mesh_verifies() {
    let m = mesh(300);
    let mut b = FlatBufferBuilder::new();
    let fv = |v: &Vector3| fm::Vector3::new(v.x, v.y, v.z);
    b.start_vector::<fm::Triangle>(m.triangles.len());
    for t in m.triangles.iter().rev() {
        b.push(fm::Triangle::new(&fv(&t.v0), &fv(&t.v1), &fv(&t.v2), &fv(&t.normal)));
    }
    let tris = b.end_vector(m.triangles.len());
    let root = fm::Mesh::create(&mut b, &fm::MeshArgs { triangles: Some(tris) });
    b.finish(root, None);
    assert_eq!(opts().from_slice::<Mesh>(b.finished_data()).unwrap(), m);

    let ours = opts().to_vec(&m).unwrap();
    let read = flatbuffers::root::<fm::Mesh<'_>>(&ours).expect("official verifier");
    let tris = read.triangles().unwrap();
    assert_eq!(tris.len(), m.triangles.len());
    for (t, want) in tris.iter().zip(&m.triangles) {
        assert_eq!((t.v2().x(), t.normal().z()), (want.v2.x, want.normal.z));
    }
}

/// Scalars and unit enums in packed vectors.
#[derive(Serialize, Deserialize, PartialEq, Debug, Clone, Copy)]
enum Kind {
    A,
    B,
    C,
}

#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
struct Scalars {
    floats: Vec<f64>,
    shorts: Vec<i16>,
    kinds: Vec<Kind>,
    pairs: Vec<(u32, f32)>,
    wide: Vec<u128>,
    chars: Vec<char>,
}

#[derive(Serialize, PartialEq, Debug)]
struct ScalarsNoHint {
    #[serde(serialize_with = "no_hint")]
    floats: Vec<f64>,
    #[serde(serialize_with = "no_hint")]
    shorts: Vec<i16>,
    #[serde(serialize_with = "no_hint")]
    kinds: Vec<Kind>,
    #[serde(serialize_with = "no_hint")]
    pairs: Vec<(u32, f32)>,
    #[serde(serialize_with = "no_hint")]
    wide: Vec<u128>,
    #[serde(serialize_with = "no_hint")]
    chars: Vec<char>,
}

#[test]
fn scalar_vectors_in_bulk() {
    let s = Scalars {
        floats: vec![1.5, -2.0, f64::MAX],
        shorts: vec![-1, 2, 3, i16::MIN, 5],
        kinds: vec![Kind::C, Kind::A, Kind::B],
        pairs: vec![(1, 2.0), (3, 4.0)],
        wide: vec![u128::MAX, 7],
        chars: vec!['a', 'é', '😀'],
    };
    let bulk = serde_flatbuf_lite::to_vec(&s).unwrap();
    let general = serde_flatbuf_lite::to_vec(&ScalarsNoHint {
        floats: s.floats.clone(),
        shorts: s.shorts.clone(),
        kinds: s.kinds.clone(),
        pairs: s.pairs.clone(),
        wide: s.wide.clone(),
        chars: s.chars.clone(),
    })
    .unwrap();
    assert_eq!(bulk, general);
    assert_eq!(serde_flatbuf_lite::from_slice::<Scalars>(&bulk).unwrap(), s);
}

/// Structs with padding never take the bulk path, and still round-trip.
#[derive(Serialize, Deserialize, PartialEq, Debug, Clone, Copy)]
struct Padded(u8, f32, u16);

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct WithPadded {
    items: Vec<Padded>,
}

#[test]
fn padded_structs_take_the_general_path() {
    let w = WithPadded { items: (0..50).map(|i| Padded(i as u8, i as f32, i as u16 * 3)).collect() };
    let bytes = serde_flatbuf_lite::to_vec(&w).unwrap();
    assert_eq!(serde_flatbuf_lite::from_slice::<WithPadded>(&bytes).unwrap(), w);
}

/// An element type whose shape depends on the value: same size and alignment, different layout.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Shifty {
    /// `(f32, f32)`: packed.
    Floats(f32, f32),
    /// `(u8, f32)`: a byte, 3 bytes of padding, a float — 8 bytes, 4-aligned, like the other.
    Byte(u8, f32),
}

impl Serialize for Shifty {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            Shifty::Floats(a, b) => (a, b).serialize(s),
            Shifty::Byte(a, b) => (a, b).serialize(s),
        }
    }
}

#[derive(Serialize)]
struct Shifties {
    items: Vec<Shifty>,
}

#[derive(Serialize)]
struct ShiftiesNoHint {
    #[serde(serialize_with = "no_hint")]
    items: Vec<Shifty>,
}

#[test]
fn elements_that_change_shape_fall_back_per_element() {
    let items = vec![Shifty::Floats(1.0, 2.0), Shifty::Byte(7, 3.0), Shifty::Floats(4.0, 5.0), Shifty::Byte(255, -1.0)];
    let bulk = serde_flatbuf_lite::to_vec(&Shifties { items: items.clone() }).unwrap();
    let general = serde_flatbuf_lite::to_vec(&ShiftiesNoHint { items }).unwrap();
    assert_eq!(bulk, general);
}

/// A sequence whose announced length is wrong (a broken `ExactSizeIterator`).
struct Lying {
    announced: usize,
    items: Vec<Vector3>,
}

impl Serialize for Lying {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.announced))?;
        for item in &self.items {
            seq.serialize_element(item)?;
        }
        seq.end()
    }
}

#[derive(Serialize)]
struct LyingHolder {
    points: Lying,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Points {
    points: Vec<Vector3>,
}

#[test]
fn wrong_length_hints_give_the_right_vector() {
    let opts = Options::new().inline_struct("Vector3");
    let items: Vec<Vector3> = (0..6).map(v).collect();
    let want = opts.to_vec(&Points { points: items.clone() }).unwrap();
    for announced in [0, 1, 2, 3, 5, 7, 100] {
        let got = opts.to_vec(&LyingHolder { points: Lying { announced, items: items.clone() } }).unwrap();
        assert_eq!(opts.from_slice::<Points>(&got).unwrap().points, items, "announced {announced}");
        if announced <= items.len() {
            assert_eq!(got, want, "announced {announced}");
        }
    }
}

/// The bulk reader relies on the whole vector's bounds being checked at the first element.
#[test]
fn packed_decode_checks_bounds_once_and_rejects_truncation() {
    let opts = opts();
    let bytes = opts.to_vec(&mesh(40)).unwrap();
    for cut in [bytes.len() - 1, bytes.len() - 48, bytes.len() / 2, 40] {
        assert!(opts.from_slice::<Mesh>(&bytes[..cut]).is_err(), "cut at {cut}");
    }
}
